/**
 * A worker that dies while starting, as a worker whose bundle is broken would: the channel
 * must fail connections at once with a clear error instead of waiting for a timeout.
 *
 * @module
 */
throw new Error("this worker fails at start-up");
