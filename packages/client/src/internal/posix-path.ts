/**
 * Pure POSIX path helpers for client configuration files: the package may not import `node:path`.
 * @module
 */

/** The directory of `file`: `/a/b` of `/a/b/config`, `.` of `config`, `/` of `/config`. */
export function posixDirname(file: string): string {
  const trimmed = file.length > 1 ? file.replace(/\/+$/, "") : file;
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  if (slash === 0) return "/";
  return trimmed.slice(0, slash);
}

/**
 * `path` resolved against `directory`: an absolute `path` as is, else `directory/path` with `.`
 * and `..` segments folded (a relative `directory` stays relative).
 */
export function posixResolve(directory: string, path: string): string {
  if (path.startsWith("/")) return normalize(path);
  return normalize(directory === "" || directory === "." ? path : `${directory}/${path}`);
}

function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (segment === ".." && absolute) continue;
    else out.push(segment);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}
