/**
 * Herald's TypeScript client: the types generated from docs/openapi.json (`schema.ts`, by
 * openapi-typescript) driven by openapi-fetch. Every call answers `{ data, error, response }`; `error` is
 * the typed problem+json body of a refusal (`Problem`), and `unwrap` turns one into a thrown
 * `HeraldProblemError`.
 */
import createClient from "openapi-fetch";
/** A client that sends `Authorization: Bearer <apiKey>` with every call. */
export function createHeraldClient(options) {
    return createClient({
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        headers: { Authorization: `Bearer ${options.apiKey}` },
        ...(options.fetch ? { fetch: options.fetch } : {}),
    });
}
/** A refusal, thrown by `unwrap`: the problem Herald answered and the HTTP response it came with. */
export class HeraldProblemError extends Error {
    problem;
    response;
    constructor(problem, response) {
        super(`${problem.status} ${problem.code}: ${problem.detail}`);
        this.name = "HeraldProblemError";
        this.problem = problem;
        this.response = response;
    }
}
/** Whether a value is a problem+json body. */
export function isProblem(value) {
    if (typeof value !== "object" || value === null)
        return false;
    const fields = value;
    return typeof fields.code === "string" && typeof fields.status === "number";
}
/** The answer's data, or a thrown `HeraldProblemError` for a refusal. */
export function unwrap(result) {
    if (result.error !== undefined || result.data === undefined) {
        if (isProblem(result.error))
            throw new HeraldProblemError(result.error, result.response);
        throw new Error(`unexpected answer ${result.response.status} from ${result.response.url}`);
    }
    return result.data;
}
