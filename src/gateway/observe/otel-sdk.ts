/**
 * The OpenTelemetry SDK, started only when the standard OTEL_* variables ask for traces:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, or
 * `OTEL_TRACES_EXPORTER=otlp` (with the OTLP default endpoint, http://localhost:4318); never with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Off by default, and then none of the SDK
 * is even loaded: its packages are imported here, lazily. On, spans go in batches over OTLP/HTTP
 * (JSON) to the collector; the exporter and the batch processor read their usual variables
 * (headers, timeout, OTEL_BSP_*), the sampler OTEL_TRACES_SAMPLER, and the resource
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name defaults to mcp-gateway). The
 * W3C trace context propagator is registered, so an incoming `traceparent` is honoured.
 */
import type { Logger } from "pino";

export interface Tracing {
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Whether the environment asks for traces, and where they go. */
export function tracesRequested(env: Env): { endpoint: string } | { off: string } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { off: "OTEL_SDK_DISABLED=true" };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (exporters.includes("none")) return { off: "OTEL_TRACES_EXPORTER=none" };
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!exporters.includes("otlp") && !tracesEndpoint && !endpoint) return { off: "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER=otlp" };
  if (tracesEndpoint) return { endpoint: tracesEndpoint };
  return { endpoint: `${(endpoint || "http://localhost:4318").replace(/\/+$/, "")}/v1/traces` };
}

let started: Promise<Tracing | undefined> | undefined;

/**
 * Starts the SDK once per process when the environment asks for it (see above); resolves
 * undefined when it does not. A second call returns the first one's result.
 */
export function startTracing(env: Env, logger: Logger, serviceVersion: string): Promise<Tracing | undefined> {
  started ??= start(env, logger, serviceVersion).catch((error: unknown) => {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, "tracing could not be started");
    return undefined;
  });
  return started;
}

async function start(env: Env, logger: Logger, serviceVersion: string): Promise<Tracing | undefined> {
  const requested = tracesRequested(env);
  if ("off" in requested) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "" && name !== "otlp");
  if (exporters.length > 0) logger.warn({ exporters }, "OTEL_TRACES_EXPORTER: only otlp is supported; the others are ignored");
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === "grpc") logger.warn({ protocol }, "OTLP over gRPC is not supported: spans are sent over HTTP (JSON) to the same endpoint");
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { detectResources, envDetector, resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = await import("@opentelemetry/semantic-conventions");
  // The environment's resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins over the defaults.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: "mcp-gateway", [ATTR_SERVICE_VERSION]: serviceVersion }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: requested.endpoint }))] });
  provider.register();
  logger.info({ endpoint: requested.endpoint }, "tracing on: spans exported over OTLP/HTTP");
  return {
    async shutdown() {
      await provider.shutdown();
    },
  };
}
