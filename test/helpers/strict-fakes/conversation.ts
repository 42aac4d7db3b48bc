/**
 * The scripted conversation every strict fake plays: asked something, "the model" calls the
 * first two offered tools in parallel; given their results, it answers. What the calls and the
 * answer look like on the wire is each provider's business (ids, reasoning, signatures…).
 */

export type Body = { [key: string]: any };

export const WEATHER_ARGS = { city: "Paris" };
export const TIME_ARGS = { zone: "Europe/Paris" };
export const FINAL_ANSWER = "It is 18°C and sunny in Paris; the local time is 14:05.";

/** The last message that is not system: a tool result means "answer now". */
export function wantsAnswer(body: Body): boolean {
  const last = [...body.messages].reverse().find((message: Body) => message.role !== "system");
  return last?.role === "tool";
}

/** The names of the first two tools offered, as the provider received them. */
export function offeredNames(body: Body): [string, string] {
  const names = (body.tools ?? []).map((tool: Body) => tool.function.name as string);
  return [names[0] ?? "get_weather", names[1] ?? names[0] ?? "get_time"];
}

export function userTexts(body: Body): string[] {
  return body.messages.filter((m: Body) => m.role === "user").map((m: Body) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
