// Type stub for the npm package build only: better-sqlite3 ships no types, and
// stores/sqlite/file.ts types the part it uses itself (Deno's npm: import is untyped anyway).
declare module "better-sqlite3";
