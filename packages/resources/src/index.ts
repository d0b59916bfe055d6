export type {
  ResourceStrategy,
  ResourceType,
  ResourceVersion,
  Scope,
  StrategyContext,
  TableColumn,
  Verb,
} from "./resource-type.js";
