/**
 * What a browser app that reads `mu serve` ships: `HttpSessionStore` from `stores/http`,
 * bundled by `tests/package/bundles.test.ts` to check it holds no hosted-export reader.
 *
 * @module
 */
export { HttpSessionStore } from "../../../stores/http/store.ts";
