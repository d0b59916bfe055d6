/**
 * The admission chain: the mutating plugins in order (once more when one asks for
 * reinvocation), and, after the object's own validation, the validating plugins in order.
 * @module
 */
import type { AdmissionAttributes, Operation } from "./attributes.js";
import { asAdmissionError, type AdmissionPlugin } from "./plugin.js";

type Step = (attrs: AdmissionAttributes) => void | Promise<void>;

/** The plugins of one phase that look at each operation, computed once. */
type Phase = Record<Operation, readonly Step[]>;

function phase(plugins: readonly AdmissionPlugin[], pick: (p: AdmissionPlugin) => Step | undefined): Phase {
  const byOperation = (operation: Operation) =>
    plugins.flatMap((plugin) => {
      const step = pick(plugin);
      return step && (!plugin.operations || plugin.operations.includes(operation)) ? [step.bind(plugin)] : [];
    });
  return { CREATE: byOperation("CREATE"), UPDATE: byOperation("UPDATE"), DELETE: byOperation("DELETE"), CONNECT: byOperation("CONNECT") };
}

async function run(steps: readonly Step[], attrs: AdmissionAttributes): Promise<void> {
  for (const step of steps) {
    try {
      await step(attrs);
    } catch (error) {
      throw asAdmissionError(attrs, error);
    }
  }
}

/** The plugins of one server, in the order they run. */
export class AdmissionChain {
  private readonly mutating: Phase;
  private readonly validating: Phase;

  /** @param plugins in the order they run (see `orderAdmissionPlugins`). */
  constructor(readonly plugins: readonly AdmissionPlugin[]) {
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
    await run(steps, attrs);
    if (attrs.reinvocation.shouldReinvoke && !attrs.reinvocation.isReinvoke) {
      attrs.reinvocation.isReinvoke = true;
      attrs.reinvocation.shouldReinvoke = false;
      await run(steps, attrs);
    }
  }

  /**
   * The validating phase: every plugin's `validate`, in order (the webhook plugin calls its
   * webhooks in parallel).
   * @throws StatusError the first refusal (a plugin's own Status, else 403 Forbidden).
   */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const steps = this.validating[attrs.operation];
    if (steps.length) await run(steps, attrs);
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
