/**
 * Herald's TypeScript client: the types generated from docs/openapi.json (`schema.ts`, by
 * openapi-typescript) driven by openapi-fetch. Every call answers `{ data, error, response }`; `error` is
 * the typed problem+json body of a refusal (`Problem`), and `unwrap` turns one into a thrown
 * `HeraldProblemError`.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** Every refusal's body: `application/problem+json` with a stable `code` (docs/api.md §2). */
export type Problem = components["schemas"]["Problem"];

/** The client of one Herald API key. */
export type HeraldClient = Client<paths>;

export interface HeraldClientOptions {
  /** Where Herald listens, without `/api/v1`: `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key: `hk_live_` and 40 base62 characters. */
  apiKey: string;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

/** A client that sends `Authorization: Bearer <apiKey>` with every call. */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** A refusal, thrown by `unwrap`: the problem Herald answered and the HTTP response it came with. */
export class HeraldProblemError extends Error {
  readonly problem: Problem;
  readonly response: Response;

  constructor(problem: Problem, response: Response) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = "HeraldProblemError";
    this.problem = problem;
    this.response = response;
  }
}

/** Whether a value is a problem+json body. */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return typeof fields.code === "string" && typeof fields.status === "number";
}

/** The answer's data, or a thrown `HeraldProblemError` for a refusal. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    if (isProblem(result.error)) throw new HeraldProblemError(result.error, result.response);
    throw new Error(`unexpected answer ${result.response.status} from ${result.response.url}`);
  }
  return result.data;
}
