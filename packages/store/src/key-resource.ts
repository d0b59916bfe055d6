/**
 * Names a store key for error messages: `/registry/<group>/<resource>/[<namespace>/]<name>`
 * becomes the qualified resource and the name, so a store error reads like the API's own.
 * @module
 */
import type { QualifiedResource } from "@orch/meta";

/** The resource and name a key stands for. */
export interface KeyResource {
  readonly resource: QualifiedResource;
  readonly name: string;
}

/**
 * Parses `key`. `/registry/core/configmaps/ns/name` gives `{group: "", resource: "configmaps"}`
 * and `name`; any other shape gives an empty resource with the whole key as the name.
 */
export function keyResource(key: string): KeyResource {
  const parts = key.split("/");
  // ["", "registry", group, resource, ..., name]
  if (parts.length >= 5 && parts[0] === "" && parts[1] === "registry") {
    const group = parts[2] as string;
    const resource = parts[3] as string;
    const name = parts[parts.length - 1] as string;
    if (group !== "" && resource !== "" && name !== "") {
      return { resource: { group: group === "core" ? "" : group, resource }, name };
    }
  }
  return { resource: { group: "", resource: "" }, name: key };
}
