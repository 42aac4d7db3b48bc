/** Formats a path like ["messages", 2, "content"] as `messages[2].content` (the OpenAI `param` style). */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else {
      const key = String(part);
      out += /^[A-Za-z_$][\w$-]*$/.test(key) ? (out === "" ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
