/**
 * Table output (`Accept: application/json;as=Table;g=meta.<domain>;v=v1`, or `g=meta.k8s.io`
 * as the reference's clients ask on any server): Name, the kind's own columns and Age, or Name
 * and Created At for a kind without columns of its own.
 * @module
 */
import { parseTime, type APIObject, type ListMeta, type Table, type TableColumnDefinition, type TableRow } from "@orch/meta";
import type { TableColumn } from "@orch/resources";
import type { ServedResource } from "./served-resource.js";

/** `includeObject`: what each row carries besides its cells. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** Parses `includeObject` (default `Metadata`); anything else is treated as the default. */
export function parseIncludeObject(value: string | null): IncludeObject {
  return value === "None" || value === "Object" ? value : "Metadata";
}

/** A duration as the reference prints ages: `45s`, `5m`, `3h`, `2d5h`, `3y`. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 365 * 2) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}

interface Renderer {
  columns: TableColumnDefinition[];
  cells(object: APIObject): unknown[];
}

const nameColumn: TableColumnDefinition = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.",
  priority: 0,
};

function renderer(served: ServedResource, now: number): Renderer {
  const custom: readonly TableColumn[] = served.type.strategy?.tableColumns ?? [];
  const definition = (c: TableColumn): TableColumnDefinition => {
    const def: TableColumnDefinition = { name: c.name, type: c.type, description: c.description, priority: c.priority };
    if (c.format !== undefined) def.format = c.format;
    return def;
  };
  if (served.type.strategy?.tableColumnsComplete) {
    return { columns: custom.map(definition), cells: (o) => custom.map((c) => c.cell(o, now)) };
  }
  if (custom.length === 0) {
    return {
      columns: [
        nameColumn,
        {
          name: "Created At",
          type: "date",
          description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
          priority: 0,
        },
      ],
      cells: (o) => [o.metadata.name ?? "", o.metadata.creationTimestamp ?? ""],
    };
  }
  const age = (o: APIObject): string => {
    const created = o.metadata.creationTimestamp;
    if (!created) return "<unknown>";
    try {
      return humanDuration(now - parseTime(created));
    } catch {
      return "<invalid>";
    }
  };
  return {
    columns: [
      nameColumn,
      ...custom.map(definition),
      { name: "Age", type: "string", description: "CreationTimestamp is a timestamp representing the server time when this object was created.", priority: 0 },
    ],
    cells: (o) => [o.metadata.name ?? "", ...custom.map((c) => c.cell(o, now)), age(o)],
  };
}

function rowObject(object: APIObject, include: IncludeObject, domain: string): unknown {
  if (include === "None") return undefined;
  if (include === "Object") return object;
  return { kind: "PartialObjectMetadata", apiVersion: `meta.${domain}/v1`, metadata: object.metadata };
}

/** Renders `objects` as a Table. */
export function renderTable(
  served: ServedResource,
  objects: readonly APIObject[],
  metadata: ListMeta,
  include: IncludeObject,
  domain: string,
  now: number,
): Table {
  const r = renderer(served, now);
  const rows: TableRow[] = objects.map((o) => {
    const row: TableRow = { cells: r.cells(o) };
    const object = rowObject(o, include, domain);
    if (object !== undefined) row.object = object;
    return row;
  });
  return { kind: "Table", apiVersion: `meta.${domain}/v1`, metadata, columnDefinitions: r.columns, rows };
}
