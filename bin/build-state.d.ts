/** dist/ has the CLI's entry point. */
export function isCompiled(root: string): boolean;
/** dist/ is compiled and at least as new as every file of src/ (always, for a package without src/). */
export function compiledIsCurrent(root: string): boolean;
