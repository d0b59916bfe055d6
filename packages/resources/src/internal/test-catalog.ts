/**
 * The five kinds the registry and OpenAPI tests were written against, so those tests keep their
 * exact expectations as the catalog grows.
 * @module
 */
import { configMapType } from "../config-map.js";
import { eventType } from "../event.js";
import { leaseType } from "../lease.js";
import { namespaceType } from "../namespace.js";
import type { ResourceType } from "../resource-type.js";
import { secretType } from "../secret.js";

/** Namespace, ConfigMap, Secret, Event and Lease, in that order. */
export const coreAndCoordination: readonly ResourceType[] = [namespaceType, configMapType, secretType, eventType, leaseType];
