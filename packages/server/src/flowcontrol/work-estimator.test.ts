import { describe, expect, it } from "vitest";
import { estimateObjects, estimateSeats, levelMaxSeats, listedFromCache, maximumListSeats, type WorkDigest } from "./work-estimator.js";

const list = (query = ""): WorkDigest => ({
  verb: "list",
  isResourceRequest: true,
  group: "",
  resource: "configmaps",
  name: "",
  query: new URLSearchParams(query),
});

describe("levelMaxSeats", () => {
  it("is 15% of the level's seats, at most its seats over the hand size, at least 1", () => {
    // The default global-default level: 49 seats of 600, hand size 6.
    expect(levelMaxSeats(49, 6)).toBe(8);
    expect(levelMaxSeats(600, 8)).toBe(75);
    expect(levelMaxSeats(20, 6)).toBe(3);
    expect(levelMaxSeats(3, 6)).toBe(1);
  });

  it("is 0 (no bound of its own) for a level without queues", () => {
    expect(levelMaxSeats(49, undefined)).toBe(0);
  });
});

describe("listedFromCache", () => {
  it("serves the most recent and not-older-than lists from the cache", () => {
    expect(listedFromCache(new URLSearchParams(""))).toBe(true);
    expect(listedFromCache(new URLSearchParams("resourceVersion=0"))).toBe(true);
    expect(listedFromCache(new URLSearchParams("resourceVersion=12&resourceVersionMatch=NotOlderThan&limit=5"))).toBe(true);
    expect(listedFromCache(new URLSearchParams("limit=500"))).toBe(true);
  });

  it("reads storage for an exact resource version and a continue token", () => {
    expect(listedFromCache(new URLSearchParams("resourceVersion=12&resourceVersionMatch=Exact"))).toBe(false);
    expect(listedFromCache(new URLSearchParams("resourceVersion=12&limit=5"))).toBe(false);
    expect(listedFromCache(new URLSearchParams("continue=abc&limit=5"))).toBe(false);
  });
});

describe("estimateSeats", () => {
  it("gives a list from the cache one seat per 100 stored objects, bounded by the level's maximum", () => {
    expect(estimateSeats(list(), 503, 8)).toBe(6);
    expect(estimateSeats(list(), 100, 8)).toBe(1);
    expect(estimateSeats(list(), 101, 8)).toBe(2);
    expect(estimateSeats(list(), 5000, 8)).toBe(8);
  });

  it("bounds every list by maximumListSeats, also in a level without a bound of its own", () => {
    expect(estimateSeats(list(), 100_000, 0)).toBe(maximumListSeats);
    expect(estimateSeats(list(), 100_000, 75)).toBe(maximumListSeats);
  });

  it("counts what a list from storage reads: twice the page, or every object and the page with a selector", () => {
    // A continue token reads storage: 2 x limit 250 = 500 objects.
    expect(estimateSeats(list("continue=abc&limit=250"), 1000, 0)).toBe(5);
    expect(estimateSeats(list("continue=abc&limit=250&labelSelector=app%3Dx"), 600, 0)).toBe(9);
    // No limit: the page is every object.
    expect(estimateSeats(list("resourceVersion=12&resourceVersionMatch=Exact"), 300, 0)).toBe(6);
  });

  it("gives a list naming one object, a list of no known count and a request that lists nothing one seat", () => {
    expect(estimateSeats(list("fieldSelector=metadata.name%3Dbench"), 5000, 8)).toBe(1);
    expect(estimateSeats(list(), undefined, 8)).toBe(1);
    expect(estimateSeats(list(), 0, 8)).toBe(1);
    expect(estimateSeats({ ...list(), verb: "get", name: "bench" }, 5000, 8)).toBe(1);
    expect(estimateSeats({ ...list(), verb: "create" }, 5000, 8)).toBe(1);
    expect(estimateSeats({ verb: "get", isResourceRequest: false }, 5000, 8)).toBe(1);
  });

  it("counts the objects a request goes through: none for a request that lists nothing or of unknown count", () => {
    expect(estimateObjects(list(), 503)).toBe(503);
    expect(estimateObjects(list("continue=abc&limit=100"), 503)).toBe(200);
    expect(estimateObjects(list(), undefined)).toBe(0);
    expect(estimateObjects({ ...list(), verb: "get", name: "bench" }, 503)).toBe(0);
  });

  it("costs a watch as a list only when it asks for its initial events", () => {
    expect(estimateSeats({ ...list(), verb: "watch" }, 5000, 8)).toBe(1);
    expect(estimateSeats({ ...list("sendInitialEvents=true&resourceVersionMatch=NotOlderThan"), verb: "watch" }, 503, 8)).toBe(6);
  });
});
