import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { BoundCounter, BoundGauge, BoundHistogram } from "./bound-metrics.js";

const buckets = [0.005, 0.025, 0.1, 1];
const observations = [0, 0.005, 0.0051, 0.02, 0.5, 3, 0.1];

/** The same measurements through prom-client's label API and through bound children render the same text. */
describe("bound metrics", () => {
  it("render exactly what prom-client renders for the same measurements", async () => {
    const plain = new Registry();
    const bound = new Registry();
    const labelNames = ["verb", "code"] as const;
    const counter = new Counter({ name: "requests_total", help: "h", labelNames, registers: [plain] });
    const boundCounter = new BoundCounter({ name: "requests_total", help: "h", labelNames, registers: [bound] });
    const gauge = new Gauge({ name: "inflight", help: "h", labelNames: ["kind"], registers: [plain] });
    const boundGauge = new BoundGauge({ name: "inflight", help: "h", labelNames: ["kind"], registers: [bound] });
    const histogram = new Histogram({ name: "duration_seconds", help: "h", labelNames, buckets, registers: [plain] });
    const boundHistogram = new BoundHistogram({ name: "duration_seconds", help: "h", labelNames, buckets, registers: [bound] });

    for (const [i, seconds] of observations.entries()) {
      const code = i % 2 === 0 ? "200" : "404";
      counter.inc({ verb: "GET", code });
      boundCounter.bind("GET", code).inc();
      histogram.observe({ verb: "GET", code }, seconds);
      boundHistogram.bind("GET", code).observe(seconds);
    }
    counter.inc({ verb: "POST", code: "201" }, 3);
    boundCounter.bind("POST", "201").inc(3);
    gauge.inc({ kind: "readOnly" }, 2);
    gauge.dec({ kind: "readOnly" });
    gauge.set({ kind: "mutating" }, 7);
    boundGauge.bind("readOnly").inc(2);
    boundGauge.bind("readOnly").dec();
    boundGauge.bind("mutating").set(7);

    expect(await bound.metrics()).toBe(await plain.metrics());
    expect(await bound.metrics()).toContain('duration_seconds_bucket{le="0.005",verb="GET",code="200"} 1');
    expect(await bound.getMetricsAsJSON()).toEqual(await plain.getMetricsAsJSON());
  });

  it("hand out one child per label values, and reset to zero", async () => {
    const registry = new Registry();
    const counter = new BoundCounter({ name: "c_total", help: "h", labelNames: ["a"], registers: [registry] });
    expect(counter.bind("x")).toBe(counter.bind("x"));
    counter.bind("x").inc(5);
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('c_total{a="x"} 0');
  });

  it("keep series apart by each label value, and bindValues hands out the child bind does", async () => {
    const registry = new Registry();
    const counter = new BoundCounter({ name: "c_total", help: "h", labelNames: ["a", "b"], registers: [registry] });
    const histogram = new BoundHistogram({ name: "d_seconds", help: "h", labelNames: ["a", "b"], buckets, registers: [registry] });
    const gauge = new BoundGauge({ name: "g", help: "h", labelNames: [], registers: [registry] });
    expect(counter.bindValues(["x", "y"])).toBe(counter.bind("x", "y"));
    expect(histogram.bindValues(["x", "y"])).toBe(histogram.bind("x", "y"));
    expect(gauge.bindValues([])).toBe(gauge.bind());
    counter.bind("x\u0000y", "z").inc();
    counter.bind("x", "y\u0000z").inc(2);
    gauge.bind().set(4);
    const text = await registry.metrics();
    expect(text).toContain('c_total{a="x\u0000y",b="z"} 1');
    expect(text).toContain('c_total{a="x",b="y\u0000z"} 2');
    expect(text).toContain("g 4");
  });
});
