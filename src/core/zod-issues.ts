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
    if (issue.code === "invalid_union") {
      const branch = matchedBranch(issue.errors);
      if (branch) {
        problems.push(...describeIssues(branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })), knownKeysAt));
        continue;
      }
      problems.push({ path: formatJsonPath(issue.path), message: unionMessage(issue.errors) ?? issueMessage(issue) });
      continue;
    }
    if (issue.code === "invalid_key" && issue.issues.length > 0) {
      // A record key that breaks its rule: the rule's own message says what a key may be.
      problems.push({ path: formatJsonPath(issue.path), message: `bad name: ${issue.issues.map(issueMessage).join("; ")}` });
      continue;
    }
    problems.push({ path: formatJsonPath(issue.path), message: issueMessage(issue) });
  }
  return problems;
}

/**
 * The union member the value was meant as: the one whose problems all lie deeper than the union
 * itself (its shape matched; a field inside it is wrong), the deepest if several. Reporting its
 * problems names the bad field (`messages[0].content[1].image_url.detail`) instead of the union.
 */
function matchedBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  let best: readonly z.core.$ZodIssue[] | undefined;
  let bestDepth = 0;
  for (const branch of branches) {
    if (branch.length === 0 || branch.some((inner) => inner.path.length === 0)) continue;
    const depth = Math.max(...branch.map((inner) => inner.path.length));
    if (depth > bestDepth) [best, bestDepth] = [branch, depth];
  }
  return best;
}

/** What one union member wanted, when the value missed it at the top: `string`, `"auto"|"none"`. */
function memberExpectation(issue: z.core.$ZodIssue): string | undefined {
  if (issue.path.length > 0) return undefined;
  if (issue.code === "invalid_type") return String(issue.expected);
  if (issue.code === "invalid_value") return issue.values.map((value) => JSON.stringify(value)).join("|");
  return undefined;
}

/** No member matched at all: "expected string or array, received number". */
function unionMessage(branches: readonly (readonly z.core.$ZodIssue[])[]): string | undefined {
  const issues = branches.flat();
  const expected = issues.map(memberExpectation);
  if (expected.length === 0 || expected.some((e) => e === undefined)) return undefined;
  const received = issues.map((issue) => /received (\w+)/.exec(issue.message)?.[1]).find((r) => r !== undefined);
  return `expected ${[...new Set(expected)].join(" or ")}${received ? `, received ${received}` : ""}`;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  const message = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "invalid_type" && message.endsWith("received undefined")) {
    return `required: expected ${issue.expected}`;
  }
  return message;
}
