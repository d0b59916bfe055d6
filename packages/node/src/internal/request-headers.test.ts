import { describe, expect, it } from "vitest";
import { RequestHeaders } from "./request-headers.js";

const raw = [
  "Host",
  "127.0.0.1",
  "Accept",
  "application/json",
  "X-Many",
  "a",
  "x-many",
  "b",
  "Set-Cookie",
  "s=1",
  "set-cookie",
  "t=2",
  "Content-Type",
  "application/json",
];

/** The Headers the adapter built before: each raw pair appended. */
function appended(pairs: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < pairs.length; i += 2) headers.append(pairs[i]!, pairs[i + 1]!);
  return headers;
}

describe("RequestHeaders", () => {
  it("answers get and has as a Headers filled from the raw pairs, repeated names joined", () => {
    const lazy = new RequestHeaders(raw);
    const full = appended(raw);
    for (const name of ["host", "ACCEPT", "x-many", "set-cookie", "content-type", "authorization"]) {
      expect(lazy.get(name)).toBe(full.get(name));
      expect(lazy.has(name)).toBe(full.has(name));
    }
    expect(lazy.get("X-Many")).toBe("a, b");
  });

  it("iterates, lists Set-Cookie and is a Headers like the filled one", () => {
    const lazy = new RequestHeaders(raw);
    expect(lazy).toBeInstanceOf(Headers);
    expect([...lazy]).toEqual([...appended(raw)]);
    expect(new RequestHeaders(raw).getSetCookie()).toEqual(["s=1", "t=2"]);
    const seen: string[] = [];
    new RequestHeaders(raw).forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual([...appended(raw)].map(([name, value]) => `${name}=${value}`));
    expect(new Headers(new RequestHeaders(raw)).get("x-many")).toBe("a, b");
  });

  it("changes like a Headers: set, append and delete, before or after a read", () => {
    const lazy = new RequestHeaders(raw);
    lazy.delete("authorization");
    expect(lazy.get("accept")).toBe("application/json");
    lazy.delete("Accept");
    lazy.set("content-length", "3");
    lazy.append("x-many", "c");
    expect(lazy.has("accept")).toBe(false);
    expect(lazy.get("content-length")).toBe("3");
    expect(lazy.get("x-many")).toBe("a, b, c");
    expect([...lazy.keys()]).toEqual(["content-length", "content-type", "host", "set-cookie", "set-cookie", "x-many"]);
  });
});
