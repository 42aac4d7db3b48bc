import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that need a system package (redis-server) run as their own command: npm run test:redis.
    exclude: [...configDefaults.exclude, "test/**/*.redis.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests start real MCP servers and HTTP servers; two cores, so keep parallelism modest.
    pool: "forks",
    maxWorkers: 2,
  },
});
