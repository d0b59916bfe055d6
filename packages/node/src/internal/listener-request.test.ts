import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { ListenerRequest } from "./listener-request.js";

/** The part of a `ServerResponse` the request reads: its state and its `close` event. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  writableFinished = false;

  /** Closes as Node does: `destroyed` set, then `close`. */
  close(finished: boolean): void {
    this.writableFinished = finished;
    this.destroyed = true;
    this.emit("close");
  }
}

function requestOn(res: FakeResponse): ListenerRequest {
  return new ListenerRequest("GET", "/api/v1/namespaces", new Headers(), res as unknown as ServerResponse);
}

describe("ListenerRequest", () => {
  it("makes its signal on the first read only, and the same one after", () => {
    const res = new FakeResponse();
    const request = requestOn(res);
    expect(res.listenerCount("close")).toBe(0);
    const signal = request.signal;
    expect(res.listenerCount("close")).toBe(1);
    expect(request.signal).toBe(signal);
    expect(ListenerRequest.controller(request).signal).toBe(signal);
    expect(res.listenerCount("close")).toBe(1);
  });

  it("aborts its signal when the response closes before it finished", () => {
    const res = new FakeResponse();
    const request = requestOn(res);
    const signal = request.signal;
    expect(signal.aborted).toBe(false);
    res.close(false);
    expect(signal.aborted).toBe(true);
  });

  it("leaves its signal alone when the response closes after it finished", () => {
    const res = new FakeResponse();
    const request = requestOn(res);
    const signal = request.signal;
    res.close(true);
    expect(signal.aborted).toBe(false);
  });

  it("says when its response is written (or its client gone): at its close, or at once when it already closed", () => {
    const res = new FakeResponse();
    const calls: string[] = [];
    requestOn(res).whenWritten(() => calls.push("written"));
    expect(calls).toEqual([]);
    res.close(true);
    expect(calls).toEqual(["written"]);
    const gone = new FakeResponse();
    gone.close(false);
    requestOn(gone).whenWritten(() => calls.push("gone"));
    expect(calls).toEqual(["written", "gone"]);
  });

  it("hands out an aborted signal when the client went away before it was asked for", () => {
    const res = new FakeResponse();
    const request = requestOn(res);
    res.close(false);
    expect(request.signal.aborted).toBe(true);
    expect(res.listenerCount("close")).toBe(0);
  });

  it("reads its signal through the class, not through an accessor of each request", () => {
    // An accessor written into each request (a getter in an object literal) gave every request a
    // hidden class of its own, which kept the request and its response alive until a full GC.
    const a = requestOn(new FakeResponse());
    const b = requestOn(new FakeResponse());
    expect(Object.getOwnPropertyDescriptor(a, "signal")).toBeUndefined();
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Object.keys(a)).toEqual(["method", "url", "headers"]);
  });

  it("carries what the listener sets: method, url, headers, body, certificates, peer address", () => {
    const headers = new Headers({ "content-type": "application/json" });
    const request = new ListenerRequest("POST", "/api/v1/namespaces", headers, new FakeResponse() as unknown as ServerResponse);
    request.body = new Uint8Array([123, 125]);
    request.remoteAddress = "127.0.0.1";
    expect(request).toMatchObject({ method: "POST", url: "/api/v1/namespaces", headers, body: new Uint8Array([123, 125]), remoteAddress: "127.0.0.1" });
    expect(request.peerCertificates).toBeUndefined();
  });
});
