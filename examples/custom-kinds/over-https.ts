/**
 * `orch-apiserver` with your own kinds: the command's whole start-up (generated certificates,
 * HTTPS, client-certificate authentication, RBAC, the admin kubeconfig, the controllers) run in
 * this process by `runAPIServer` of `@orch/cli`, with `createServer` adding Widgets to the
 * server it builds. kubectl then works with the kubeconfig it writes: `kubectl get widgets`,
 * `kubectl explain widget`, `kubectl apply --server-side`.
 * @module
 */
import { runAPIServer } from "@orch/cli";
import { APIServer } from "@orch/server";
import { widgetType } from "./widget.js";

/** A running {@link serveWidgets} server. */
export interface WidgetServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The admin kubeconfig the server wrote in its data dir (user `admin` in `system:masters`). */
  kubeconfigPath: string;
  /** Stops the server gracefully; resolves with the command's exit code (0). */
  stop(): Promise<number>;
}

/**
 * Serves the built-in kinds and Widgets over HTTPS on 127.0.0.1, on a free port, keeping its
 * certificates and kubeconfig in `dataDir` (objects stay in memory).
 * @throws Error when the server ends before it is ready (its message says why).
 */
export async function serveWidgets(dataDir: string): Promise<WidgetServer> {
  const abort = new AbortController();
  let errors = "";
  let ready!: (info: { url: string; kubeconfig: string }) => void;
  const readyInfo = new Promise<{ url: string; kubeconfig: string }>((resolve) => (ready = resolve));
  const running = runAPIServer(["--bind-address", "127.0.0.1", "--secure-port", "0", "--data-dir", dataDir], {
    stdout: { write: () => true }, // the ready line; `onReady` has the same facts
    stderr: { write: (text: string) => (errors += text) },
    signal: abort.signal,
    createServer: (options) => new APIServer({ ...options, resources: [widgetType] }),
    onReady: ready,
  });
  const ended = running.then((code) => Promise.reject(new Error(`orch-apiserver ended with ${code}: ${errors}`)));
  const info = await Promise.race([readyInfo, ended]);
  return {
    url: info.url,
    kubeconfigPath: info.kubeconfig,
    stop: () => {
      abort.abort();
      return running;
    },
  };
}
