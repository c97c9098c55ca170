/**
 * Herald's TypeScript client: the types generated from docs/openapi.json (`schema.ts`, by
 * openapi-typescript) driven by openapi-fetch. Every call answers `{ data, error, response }`; `error` is
 * the typed problem+json body of a refusal (`Problem`), and `unwrap` turns one into a thrown
 * `HeraldProblemError`.
 */
import { type Client } from "openapi-fetch";
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
export declare function createHeraldClient(options: HeraldClientOptions): HeraldClient;
/** A refusal, thrown by `unwrap`: the problem Herald answered and the HTTP response it came with. */
export declare class HeraldProblemError extends Error {
    readonly problem: Problem;
    readonly response: Response;
    constructor(problem: Problem, response: Response);
}
/** Whether a value is a problem+json body. */
export declare function isProblem(value: unknown): value is Problem;
/** The answer's data, or a thrown `HeraldProblemError` for a refusal. */
export declare function unwrap<T>(result: {
    data?: T;
    error?: unknown;
    response: Response;
}): T;
