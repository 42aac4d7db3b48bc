import { defineConfig } from "vitest/config";

/** `npm run test:redis`: the tests that need a real redis-server (Debian's package). */
export default defineConfig({
  test: {
    include: ["test/**/*.redis.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
