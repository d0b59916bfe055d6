/**
 * The admission chain: the mutating plugins in order (once more when one asks for
 * reinvocation), and, after the object's own validation, the validating plugins in order.
 * @module
 */
import type { AdmissionAttributes, Operation } from "./attributes.js";
import { asAdmissionError, type AdmissionPlugin } from "./plugin.js";

type Step = (attrs: AdmissionAttributes) => void | Promise<void>;

/** One plugin's step of a phase. */
interface NamedStep {
  name: string;
  step: Step;
}

/** The plugins of one phase that look at each operation, computed once. */
type Phase = Record<Operation, readonly NamedStep[]>;

/**
 * One measured part of admission: a plugin's `admit` or `validate` (`kind: "controller"`), a
 * whole phase (`kind: "step"`, `name` empty), or one webhook call (`kind: "webhook"`). `seconds` is its duration; `rejected` whether it
 * refused the write.
 */
export interface AdmissionObservation {
  kind: "step" | "controller" | "webhook";
  name: string;
  type: "admit" | "validate";
  operation: Operation;
  rejected: boolean;
  seconds: number;
}

/** Options of {@link AdmissionChain}. */
export interface AdmissionChainOptions {
  /** Receives the duration of each phase and each plugin call (the server's admission metrics). */
  observe?: (observation: AdmissionObservation) => void;
  /** A monotonic clock in milliseconds for `observe`; `performance.now()` by default. */
  now?: () => number;
}

function phase(plugins: readonly AdmissionPlugin[], pick: (p: AdmissionPlugin) => Step | undefined): Phase {
  const byOperation = (operation: Operation) =>
    plugins.flatMap((plugin) => {
      const step = pick(plugin);
      return step && (!plugin.operations || plugin.operations.includes(operation)) ? [{ name: plugin.name, step: step.bind(plugin) }] : [];
    });
  return { CREATE: byOperation("CREATE"), UPDATE: byOperation("UPDATE"), DELETE: byOperation("DELETE"), CONNECT: byOperation("CONNECT") };
}

async function run(steps: readonly NamedStep[], attrs: AdmissionAttributes, type: "admit" | "validate", options: AdmissionChainOptions): Promise<void> {
  const observe = options.observe;
  const now = options.now ?? (() => performance.now());
  const phaseStarted = observe ? now() : 0;
  const report = (kind: "step" | "controller", name: string, started: number, rejected: boolean) =>
    observe?.({ kind, name, type, operation: attrs.operation, rejected, seconds: Math.max(0, now() - started) / 1000 });
  for (const { name, step } of steps) {
    const started = observe ? now() : 0;
    try {
      await step(attrs);
      report("controller", name, started, false);
    } catch (error) {
      report("controller", name, started, true);
      report("step", "", phaseStarted, true);
      throw asAdmissionError(attrs, error);
    }
  }
  report("step", "", phaseStarted, false);
}

/** The plugins of one server, in the order they run. */
export class AdmissionChain {
  private readonly mutating: Phase;
  private readonly validating: Phase;

  private readonly options: AdmissionChainOptions;

  /**
   * @param plugins in the order they run (see `orderAdmissionPlugins`).
   * @param options an observer of the time each phase and plugin takes.
   */
  constructor(
    readonly plugins: readonly AdmissionPlugin[],
    options: AdmissionChainOptions = {},
  ) {
    this.options = options;
    this.mutating = phase(plugins, (p) => p.admit);
    this.validating = phase(plugins, (p) => p.validate);
  }

  /** True when some plugin looks at `operation` in either phase (the write path skips the chain otherwise). */
  handles(operation: Operation): boolean {
    return this.mutating[operation].length > 0 || this.validating[operation].length > 0;
  }

  /**
   * The mutating phase: every plugin's `admit`, in order; when one of them set
   * `attrs.reinvocation.shouldReinvoke`, the whole phase runs once more (the reference's
   * reinvocation: in-tree plugins are idempotent, the webhook plugin calls only its `IfNeeded`
   * webhooks whose view of the object is stale).
   * @throws StatusError the first refusal (a plugin's own Status, else 403 Forbidden).
   */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const steps = this.mutating[attrs.operation];
    if (steps.length === 0) return;
    await run(steps, attrs, "admit", this.options);
    if (attrs.reinvocation.shouldReinvoke && !attrs.reinvocation.isReinvoke) {
      attrs.reinvocation.isReinvoke = true;
      attrs.reinvocation.shouldReinvoke = false;
      await run(steps, attrs, "admit", this.options);
    }
  }

  /**
   * The validating phase: every plugin's `validate`, in order (the webhook plugin calls its
   * webhooks in parallel).
   * @throws StatusError the first refusal (a plugin's own Status, else 403 Forbidden).
   */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const steps = this.validating[attrs.operation];
    if (steps.length) await run(steps, attrs, "validate", this.options);
  }

  /** Resolves when every plugin can decide. */
  async ready(): Promise<void> {
    await Promise.all(this.plugins.map((p) => p.ready?.()));
  }

  /** Stops every plugin. */
  stop(): void {
    for (const p of this.plugins) p.stop?.();
  }
}
