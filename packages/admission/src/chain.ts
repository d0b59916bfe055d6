/**
 * The admission chain: the mutating plugins in order (once more when one asks for
 * reinvocation), and, after the object's own validation, the validating plugins in order.
 * @module
 */
import type { AdmissionAttributes, Operation } from "./attributes.js";
import { asAdmissionError, passedAtOnce, type AdmissionPlugin } from "./plugin.js";

type Step = (attrs: AdmissionAttributes) => void | Promise<void>;

/** One plugin's step of a phase. */
interface NamedStep {
  name: string;
  step: Step;
}

/** The step of a plugin that does not look at the written resource: it returns at once, as the plugin would. */
const passes: Step = () => undefined;

/**
 * The plugins of one phase that look at one operation, and (computed on first use) the same list
 * for each written resource: a plugin whose `handlesResource` refuses the resource keeps its
 * place (it is still reported to the observer) with a step that returns at once.
 */
class OperationSteps {
  readonly steps: readonly NamedStep[];
  readonly #plugins: readonly (AdmissionPlugin | undefined)[];
  readonly #filtered: boolean;
  readonly #byResource = new Map<string, Map<string, readonly NamedStep[]>>();

  constructor(steps: readonly NamedStep[], plugins: readonly AdmissionPlugin[]) {
    this.steps = steps;
    this.#plugins = plugins;
    this.#filtered = plugins.some((p) => p.handlesResource !== undefined);
  }

  /** The steps for a write of `group`/`resource`. */
  for(group: string, resource: string): readonly NamedStep[] {
    if (!this.#filtered) return this.steps;
    let byName = this.#byResource.get(group);
    if (byName === undefined) this.#byResource.set(group, (byName = new Map()));
    let steps = byName.get(resource);
    if (steps === undefined) {
      steps = this.steps.map((s, i) => (this.#plugins[i]?.handlesResource?.(group, resource) === false ? { name: s.name, step: passes } : s));
      byName.set(resource, steps);
    }
    return steps;
  }
}

/** The plugins of one phase that look at each operation, computed once. */
type Phase = Record<Operation, OperationSteps>;

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
  const byOperation = (operation: Operation) => {
    const looking = plugins.filter((plugin) => pick(plugin) && (!plugin.operations || plugin.operations.includes(operation)));
    return new OperationSteps(
      looking.map((plugin) => ({ name: plugin.name, step: (pick(plugin) as Step).bind(plugin) })),
      looking,
    );
  };
  return { CREATE: byOperation("CREATE"), UPDATE: byOperation("UPDATE"), DELETE: byOperation("DELETE"), CONNECT: byOperation("CONNECT") };
}

const performanceNow = (): number => performance.now();

/** The refusal `error` of the step `name`, reported (its own and its phase's observation) and made an admission error. */
function refused(
  attrs: AdmissionAttributes,
  type: "admit" | "validate",
  options: AdmissionChainOptions,
  name: string,
  started: number,
  phaseStarted: number,
  error: unknown,
): Error {
  const observe = options.observe;
  if (observe) {
    const now = options.now ?? performanceNow;
    observe({ kind: "controller", name, type, operation: attrs.operation, rejected: true, seconds: Math.max(0, now() - started) / 1000 });
    observe({ kind: "step", name: "", type, operation: attrs.operation, rejected: true, seconds: Math.max(0, now() - phaseStarted) / 1000 });
  }
  return asAdmissionError(attrs, error);
}

/** A step that answered with a promise: where it is in its phase, its promise and when it started. */
interface PendingStep {
  i: number;
  promise: Promise<void>;
  started: number;
}

/**
 * Runs `steps` from `from` on, in order, as long as each answers synchronously, reporting each
 * one; stops at the first that returns a promise and returns it (unreported), or `undefined`
 * when every step ran.
 * @throws Error the first refusal, reported.
 */
function runSync(
  steps: readonly NamedStep[],
  from: number,
  attrs: AdmissionAttributes,
  type: "admit" | "validate",
  options: AdmissionChainOptions,
  phaseStarted: number,
): PendingStep | undefined {
  const observe = options.observe;
  const now = options.now ?? performanceNow;
  for (let i = from; i < steps.length; i++) {
    const { name, step } = steps[i] as NamedStep;
    const started = observe ? now() : 0;
    let result: void | Promise<void>;
    try {
      result = step(attrs);
    } catch (error) {
      throw refused(attrs, type, options, name, started, phaseStarted, error);
    }
    if (isPromiseLike(result)) return { i, promise: result, started };
    observe?.({ kind: "controller", name, type, operation: attrs.operation, rejected: false, seconds: Math.max(0, now() - started) / 1000 });
  }
  return undefined;
}

/**
 * Runs `steps` in order, each after the previous one finished, and reports each step's and (at
 * the end) the phase's duration. A step that answers synchronously is not awaited: most plugins
 * look at a few kinds and the others pass at once, and a phase then costs no turn of the
 * microtask queue (and no promise) per plugin. The first step that returns a promise hands the
 * rest of the phase to {@link runFrom}, which awaits it.
 * @throws Error (synchronously, or as the returned promise's rejection) the first refusal.
 */
function run(steps: readonly NamedStep[], attrs: AdmissionAttributes, type: "admit" | "validate", options: AdmissionChainOptions): Promise<void> | undefined {
  const observe = options.observe;
  const now = options.now ?? performanceNow;
  const phaseStarted = observe ? now() : 0;
  const pending = runSync(steps, 0, attrs, type, options, phaseStarted);
  if (pending) return runFrom(steps, attrs, type, options, pending, phaseStarted);
  observe?.({ kind: "step", name: "", type, operation: attrs.operation, rejected: false, seconds: Math.max(0, now() - phaseStarted) / 1000 });
  return undefined;
}

/** Whether a step's answer has to be awaited: a promise, except the shared {@link passedAtOnce}. */
function isPromiseLike(value: unknown): value is Promise<void> {
  return value !== undefined && value !== passedAtOnce && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** The rest of a phase from the step `pending` is the promise of, awaited first; the later steps as in {@link run}. */
async function runFrom(
  steps: readonly NamedStep[],
  attrs: AdmissionAttributes,
  type: "admit" | "validate",
  options: AdmissionChainOptions,
  pending: PendingStep | undefined,
  phaseStarted: number,
): Promise<void> {
  const observe = options.observe;
  const now = options.now ?? performanceNow;
  while (pending !== undefined) {
    const { i, promise, started } = pending;
    const name = (steps[i] as NamedStep).name;
    try {
      await promise;
    } catch (error) {
      throw refused(attrs, type, options, name, started, phaseStarted, error);
    }
    observe?.({ kind: "controller", name, type, operation: attrs.operation, rejected: false, seconds: Math.max(0, now() - started) / 1000 });
    pending = runSync(steps, i + 1, attrs, type, options, phaseStarted);
  }
  observe?.({ kind: "step", name: "", type, operation: attrs.operation, rejected: false, seconds: Math.max(0, now() - phaseStarted) / 1000 });
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
    return this.mutating[operation].steps.length > 0 || this.validating[operation].steps.length > 0;
  }

  /**
   * The mutating phase: every plugin's `admit`, in order; when one of them set
   * `attrs.reinvocation.shouldReinvoke`, the whole phase runs once more (the reference's
   * reinvocation: in-tree plugins are idempotent, the webhook plugin calls only its `IfNeeded`
   * webhooks whose view of the object is stale).
   * Without a step that answers with a promise, the answer is the shared {@link passedAtOnce}.
   * @throws StatusError (as the promise's rejection) the first refusal (a plugin's own Status,
   * else 403 Forbidden).
   */
  admit(attrs: AdmissionAttributes): Promise<void> {
    const steps = this.mutating[attrs.operation].for(attrs.resource.group, attrs.resource.resource);
    if (steps.length === 0) return passedAtOnce;
    let first: Promise<void> | undefined;
    try {
      first = run(steps, attrs, "admit", this.options);
      if (first === undefined) {
        if (!this.#reinvokes(attrs)) return passedAtOnce;
        first = run(steps, attrs, "admit", this.options);
        return first ?? passedAtOnce;
      }
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.#admitAfter(first, steps, attrs);
  }

  /** Whether the mutating phase runs once more (and marks the attributes so). */
  #reinvokes(attrs: AdmissionAttributes): boolean {
    if (!attrs.reinvocation.shouldReinvoke || attrs.reinvocation.isReinvoke) return false;
    attrs.reinvocation.isReinvoke = true;
    attrs.reinvocation.shouldReinvoke = false;
    return true;
  }

  /** The end of {@link admit} after a step answered with a promise. */
  async #admitAfter(first: Promise<void>, steps: readonly NamedStep[], attrs: AdmissionAttributes): Promise<void> {
    await first;
    if (this.#reinvokes(attrs)) {
      const again = run(steps, attrs, "admit", this.options);
      if (again) await again;
    }
  }

  /**
   * The validating phase: every plugin's `validate`, in order (the webhook plugin calls its
   * webhooks in parallel). Without a step that answers with a promise, the answer is the shared
   * {@link passedAtOnce}.
   * @throws StatusError (as the promise's rejection) the first refusal (a plugin's own Status,
   * else 403 Forbidden).
   */
  validate(attrs: AdmissionAttributes): Promise<void> {
    const steps = this.validating[attrs.operation].for(attrs.resource.group, attrs.resource.resource);
    if (steps.length === 0) return passedAtOnce;
    try {
      return run(steps, attrs, "validate", this.options) ?? passedAtOnce;
    } catch (error) {
      return Promise.reject(error as Error);
    }
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
