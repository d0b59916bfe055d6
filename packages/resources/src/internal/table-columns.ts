/**
 * The Name and Age columns of the reference's printers, for kinds whose Table lists every column
 * itself (`tableColumnsComplete`) because Age is not last, as the server would put it.
 * @module
 */
import type { TableColumn } from "../resource-type.js";
import { ageOf } from "./duration.js";

/** The Name column: the object's name. */
export const nameColumn: TableColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.",
  priority: 0,
  cell: (o) => o.metadata?.name ?? "",
};

/** The Age column: the time since the object's `creationTimestamp`, as kubectl prints it (`5m`). */
export const ageColumn: TableColumn = {
  name: "Age",
  type: "string",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  cell: (o, now) => ageOf(o.metadata?.creationTimestamp, now ?? Date.now()),
};
