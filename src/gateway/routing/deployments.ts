/**
 * An alias's `deployments`: several places that serve the same model. The router puts them in
 * the order one request tries them, and keeps a failing one out for a while.
 *
 * Spreading is per process and deterministic. `"weighted"` (the default) is a smooth weighted
 * round-robin (nginx's): weights 3:1 send exactly 3 of every 4 requests to the first, interleaved
 * (a a b a), never in bursts. `"least-busy"` picks the deployment with the fewest model calls in
 * flight from this process; ties (an idle gateway) are broken by the same weighted round-robin.
 * The other deployments follow the chosen one (by weight, or by load), then the alias's
 * fallbacks: a request whose deployment fails past its retries tries the others before them.
 *
 * Cooldowns are shared. When a request gives up on a deployment after its retries (`retries.
 * attempts` retryable failures in a row: 429, 5xx, network errors, timeouts), the deployment is
 * cooled down for the alias's `cooldownMs` (or the provider's `retry-after`, when longer): an
 * entry in the state store, so every instance skips it until then. A cooled-down deployment is
 * still tried as a last resort, after the fallbacks, rather than refusing a request unanswered.
 * While the store is unavailable, cooldowns are kept in this process only (logged once); the
 * ones this process saw or read stay known to it in any case.
 */
import type { GatewayError } from "../../core/index.ts";
import type { ModelAliasConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { StateBackend, StateStore } from "../state/store.ts";
import type { ProviderEntry } from "./providers.ts";
import { resolveModel, type ModelCandidate, type ResolvedModel } from "./resolve-model.ts";

/** A cooled-down deployment in the store, under its `provider/model`. */
export interface Cooldown {
  /** When it may be used again (ms since the epoch). */
  until: number;
  /** The status of the failure that cooled it down. */
  status: number;
  code?: string;
}

/** What the resilient model reports about the deployments it calls. */
export interface DeploymentHooks {
  /** A model call to this candidate starts; the function returned ends it (idempotent). */
  begin(candidate: ModelCandidate): () => void;
  /** A request gave up on this deployment after retryable failures. Resolves once recorded; never rejects. */
  cooldown(candidate: ModelCandidate, error: GatewayError, requestId?: string): Promise<void>;
}

/** Entries carry their end (`until`); the table's TTL only bounds how long one lingers. */
const COOLDOWN_TABLE = { ttlMs: 60 * 60 * 1000, maxEntryBytes: 1024, maxEntries: 10_000 };
/** The longest cooldown, whatever a retry-after asks. */
const MAX_COOLDOWN_MS = COOLDOWN_TABLE.ttlMs;

export interface DeploymentRouterOptions {
  store: StateBackend;
  logger: Logger;
  /** The clock (tests). */
  now?: () => number;
}

const NOTHING = () => {};

export class DeploymentRouter implements DeploymentHooks {
  readonly #table: StateStore<Cooldown>;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** Cooldowns this process saw or read: deployment -> until. */
  readonly #known = new Map<string, number>();
  /** Model calls in flight from this process, per deployment. */
  readonly #inFlight = new Map<string, number>();
  /** The round-robin's current weights, per alias. */
  readonly #rotation = new WeakMap<ModelAliasConfig, Map<string, number>>();
  #storeDown = false;

  constructor(options: DeploymentRouterOptions) {
    this.#table = options.store.table<Cooldown>("cooldowns", COOLDOWN_TABLE);
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The candidates in the order this request tries them: the chosen deployment, the other
   * available ones, the fallbacks, then the cooled-down deployments (soonest back first). A model
   * without deployments is returned as it is, at once (no promise: most requests).
   */
  route(model: ResolvedModel, requestId?: string): ResolvedModel | Promise<ResolvedModel> {
    const alias = model.alias;
    if (!alias || !model.candidates.some((c) => c.deployment)) return model;
    return this.routeDeployments(model, alias, requestId);
  }

  private async routeDeployments(model: ResolvedModel, alias: NonNullable<ResolvedModel["alias"]>, requestId: string | undefined): Promise<ResolvedModel> {
    const deployments = model.candidates.filter((c) => c.deployment);
    const fallbacks = model.candidates.filter((c) => !c.deployment);
    const cooled = await this.cooledDown(
      deployments.map((c) => c.deployment!.ref),
      requestId,
    );
    const ready = deployments.filter((c) => !cooled.has(c.deployment!.ref));
    const resting = deployments.filter((c) => cooled.has(c.deployment!.ref)).sort((a, b) => cooled.get(a.deployment!.ref)! - cooled.get(b.deployment!.ref)!);
    const candidates = [...this.spread(alias, ready), ...fallbacks, ...resting];
    const first = candidates[0]!;
    return { ...model, provider: first.provider, modelId: first.modelId, candidates };
  }

  /** The deployments among `refs` cooled down now, with when each comes back. */
  async cooledDown(refs: readonly string[], requestId?: string): Promise<Map<string, number>> {
    const now = this.#now();
    const cooled = new Map<string, number>();
    const ask: string[] = [];
    for (const ref of refs) {
      const until = this.#known.get(ref);
      if (until !== undefined && until > now) cooled.set(ref, until);
      else {
        if (until !== undefined) this.#known.delete(ref);
        ask.push(ref);
      }
    }
    if (ask.length === 0) return cooled;
    try {
      const entries = await Promise.all(ask.map((ref) => this.#table.get(ref)));
      this.storeAnswered();
      entries.forEach((entry, i) => {
        if (typeof entry?.until !== "number" || entry.until <= now) return;
        cooled.set(ask[i]!, entry.until);
        // Remembered here too: a cooldown only ends by time, and the store may go away.
        this.#known.set(ask[i]!, entry.until);
      });
    } catch (error) {
      this.storeFailed(error, requestId);
    }
    return cooled;
  }

  begin(candidate: ModelCandidate): () => void {
    const ref = candidate.deployment?.ref;
    if (ref === undefined) return NOTHING;
    this.#inFlight.set(ref, (this.#inFlight.get(ref) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#inFlight.get(ref) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(ref, left);
      else this.#inFlight.delete(ref);
    };
  }

  /** Model calls in flight from this process to a deployment. */
  busy(ref: string): number {
    return this.#inFlight.get(ref) ?? 0;
  }

  async cooldown(candidate: ModelCandidate, error: GatewayError, requestId?: string): Promise<void> {
    const deployment = candidate.deployment;
    if (!deployment || deployment.cooldownMs === 0) return;
    const ms = Math.min(MAX_COOLDOWN_MS, Math.max(deployment.cooldownMs, error.retryAfterMs ?? 0));
    const until = this.#now() + ms;
    if ((this.#known.get(deployment.ref) ?? 0) < until) this.#known.set(deployment.ref, until);
    this.#logger.warn({ requestId, deployment: deployment.ref, cooldownMs: ms, status: error.status, code: error.code, err: error.message }, "deployment cooled down");
    try {
      await this.#table.set(deployment.ref, { until, status: error.status, ...(error.code === undefined ? {} : { code: error.code }) });
      this.storeAnswered();
    } catch (failure) {
      this.storeFailed(failure, requestId);
    }
  }

  /** The order of the available deployments: the chosen one first. */
  private spread(alias: ModelAliasConfig, ready: ModelCandidate[]): ModelCandidate[] {
    if (ready.length <= 1) return ready;
    const leastBusy = alias.strategy === "least-busy";
    let pool = ready;
    if (leastBusy) {
      const fewest = Math.min(...ready.map((c) => this.busy(c.deployment!.ref)));
      pool = ready.filter((c) => this.busy(c.deployment!.ref) === fewest);
    }
    const chosen = this.rotate(alias, pool);
    const byWeight = (a: ModelCandidate, b: ModelCandidate) => b.deployment!.weight - a.deployment!.weight;
    const byLoad = (a: ModelCandidate, b: ModelCandidate) => this.busy(a.deployment!.ref) - this.busy(b.deployment!.ref) || byWeight(a, b);
    // Array sort is stable: equal ones keep the config's order.
    const others = ready.filter((c) => c !== chosen).sort(leastBusy ? byLoad : byWeight);
    return [chosen, ...others];
  }

  /**
   * One step of the smooth weighted round-robin over `pool`: each gains its weight, the highest
   * (the first on a tie) is chosen and loses the pool's total.
   */
  private rotate(alias: ModelAliasConfig, pool: ModelCandidate[]): ModelCandidate {
    let current = this.#rotation.get(alias);
    if (!current) {
      current = new Map();
      this.#rotation.set(alias, current);
    }
    let total = 0;
    let best = pool[0]!;
    let bestWeight = -Infinity;
    for (const candidate of pool) {
      const { ref, weight } = candidate.deployment!;
      total += weight;
      const value = (current.get(ref) ?? 0) + weight;
      current.set(ref, value);
      if (value > bestWeight) [best, bestWeight] = [candidate, value];
    }
    current.set(best.deployment!.ref, bestWeight - total);
    return best;
  }

  private storeFailed(error: unknown, requestId: string | undefined): void {
    if (this.#storeDown) return;
    this.#storeDown = true;
    this.#logger.warn({ requestId, err: error instanceof Error ? error.message : String(error) }, "deployment cooldowns are kept in this process only while the state store is unavailable");
  }

  private storeAnswered(): void {
    if (!this.#storeDown) return;
    this.#storeDown = false;
    this.#logger.info({}, "deployment cooldowns are shared through the state store again");
  }
}

/**
 * A model name resolved (a GatewayError for an unknown one) and, with a router, an alias's
 * deployments in the order this call tries them (spread, cooled-down ones last). A promise only
 * when the store is read: the doors await it only then.
 */
export function routedModel(
  name: string,
  providers: ReadonlyMap<string, ProviderEntry>,
  aliases: Readonly<Record<string, ModelAliasConfig>>,
  router: DeploymentRouter | undefined,
  requestId?: string,
): ResolvedModel | Promise<ResolvedModel> {
  const resolved = resolveModel(name, providers, aliases);
  return router ? router.route(resolved, requestId) : resolved;
}
