/** The operator's `toolPolicy`: tools denied, and tools whose calls need a person's approval; and what the model is told. */
import type { ToolPolicyConfig } from "../../core/config/index.ts";
import { patternMatcher } from "../../loop/tool-views.ts";

/** MCP tool annotations the policy reads. */
export interface ToolHints {
  destructiveHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
  readOnlyHint?: boolean | undefined;
}

export interface ToolPolicy {
  /** Whether any rule is set. */
  readonly active: boolean;
  denied(name: string): boolean;
  /** Whether a call of this tool needs someone's approval (an annotation counts only when the server set it to true). */
  needsApproval(name: string, hints: ToolHints | undefined): boolean;
}

/** The gateway's `toolPolicy` and an alias's, together: either one's deny or approval applies. */
export function compilePolicy(...policies: (ToolPolicyConfig | undefined)[]): ToolPolicy {
  const given = policies.filter((p): p is ToolPolicyConfig => p !== undefined);
  const deny = patternMatcher(given.flatMap((p) => p.deny ?? []));
  const approveNames = patternMatcher(given.flatMap((p) => p.approve?.names ?? []));
  const annotations = new Set(given.flatMap((p) => p.approve?.annotations ?? []));
  return {
    active: given.some((p) => (p.deny?.length ?? 0) > 0 || (p.approve?.names?.length ?? 0) > 0 || (p.approve?.annotations?.length ?? 0) > 0),
    denied: deny,
    needsApproval: (name, hints) => approveNames(name) || [...annotations].some((a) => hints?.[a] === true),
  };
}

export const DENIED_BY_POLICY = (name: string) => `Error: the tool "${name}" is not allowed by the gateway's tool policy. Do not call it again; do the task another way or tell the user.`;
export const NEEDS_APPROVAL = (name: string) =>
  `Error: this call of "${name}" was not run: the gateway's tool policy says a person must approve it, and this request has no way to ask one. ` +
  "Do not call it again in this request: tell the user what you wanted to do with it and why, so that they can run it or approve it another way.";
export const DECLINED = (name: string) => `Error: the user did not approve this call of "${name}", so it was not run. Do not call it again unless the user asks you to.`;
