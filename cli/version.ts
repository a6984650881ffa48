/**
 * The version `mu --version` prints. A constant rather than a read of `deno.json` or
 * `package.json` at run time: the CLI runs from the repository, the npm build and JSR alike,
 * and those files are not at the same place (or present) in each. A test keeps it equal to
 * both manifests.
 *
 * @module
 */

/** The package version. */
export const MU_VERSION = "0.1.0";
