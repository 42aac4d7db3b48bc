import type { z } from "zod";
import { didYouMean } from "./did-you-mean.ts";
import { formatJsonPath } from "./json-path.ts";

export interface FieldProblem {
  /** JSON path of the bad field, e.g. `mcpServers.files.args[0]`. */
  path: string;
  message: string;
}

/**
 * Turns zod issues into one problem per bad field, each naming its JSON path and what was
 * expected; unknown keys get a "did you mean" when a known key is close.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeysAt: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const suggestion = didYouMean(key, knownKeysAt(issue.path));
        problems.push({
          path: formatJsonPath([...issue.path, key]),
          message: `unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
        });
      }
      continue;
    }
    problems.push({ path: formatJsonPath(issue.path), message: issueMessage(issue) });
  }
  return problems;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  const message = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "invalid_type" && message.endsWith("received undefined")) {
    return `required: expected ${issue.expected}`;
  }
  return message;
}
