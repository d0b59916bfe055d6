/**
 * {@link builtinControllers}: every controller this package provides, for the `controllers`
 * option of {@link ControllerManager}.
 * @module
 */
import type { ControllerDescriptor } from "./controller.js";
import { garbageCollectorController } from "./garbage-collector.js";

/** Every controller of this package (so far `garbagecollector`), for {@link ControllerManager}'s `controllers`. */
export const builtinControllers: readonly ControllerDescriptor[] = [garbageCollectorController];
