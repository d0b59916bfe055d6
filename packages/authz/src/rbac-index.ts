/**
 * The in-memory index the RBAC authorizer decides from: every Role, ClusterRole, RoleBinding
 * and ClusterRoleBinding, kept current by watch events, with bindings indexed by subject so a
 * decision reads only the bindings that name the user, one of its groups or its service account.
 *
 * Each binding points at a slot for the role it references; the slot holds the role's rules
 * (compiled on first use) and is updated in place when the role changes, so a role that appears
 * after its bindings starts granting at once and a deleted role stops granting at once, without
 * touching the bindings.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import { compileRules, type CompiledRule } from "./internal/compiled-rule.js";
import type { RBACRequest } from "./rule-match.js";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "./rbac-types.js";

/** The kinds the index holds. */
export type RBACKind = "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding";

/** What happened to an object, as a watch reports it. */
export type RBACEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One change to apply to the index: a watch event of one of the four RBAC kinds. */
export type RBACEvent =
  | { type: RBACEventType; kind: "Role"; object: Role }
  | { type: RBACEventType; kind: "ClusterRole"; object: ClusterRole }
  | { type: RBACEventType; kind: "RoleBinding"; object: RoleBinding }
  | { type: RBACEventType; kind: "ClusterRoleBinding"; object: ClusterRoleBinding };

/** Everything to load at once (the items of an initial list); absent kinds load empty. */
export interface RBACSnapshot {
  /** Roles (namespaced). */
  roles?: Iterable<Role>;
  /** ClusterRoles. */
  clusterRoles?: Iterable<ClusterRole>;
  /** RoleBindings (namespaced). */
  roleBindings?: Iterable<RoleBinding>;
  /** ClusterRoleBindings. */
  clusterRoleBindings?: Iterable<ClusterRoleBinding>;
}

/**
 * One way a user holds a role: a binding, the subject of it that names the user, and the role.
 * Handed to the visitor of {@link RBACIndex.someGrant}; valid until the next change to the index.
 */
export interface RBACGrant {
  /** `ClusterRoleBinding` (applies everywhere) or `RoleBinding` (applies in its namespace). */
  readonly bindingKind: "ClusterRoleBinding" | "RoleBinding";
  /** The binding. */
  readonly binding: RoleBinding | ClusterRoleBinding;
  /** The subject of the binding that matched the user. */
  readonly subject: Subject;
  /** The role the binding references. */
  readonly roleRef: RoleRef;
  /**
   * The rules of the referenced role, or `undefined` while it does not exist (the grant then
   * allows nothing; the reference reports it as a resolution error).
   */
  readonly rules: readonly PolicyRule[] | undefined;
  /** True when a rule of the role allows `request` (from the authorizer's `requestOf`). */
  allows(request: RBACRequest): boolean;
  /**
   * The grant as the reference describes it in an allow reason: `ClusterRoleBinding "x" of
   * ClusterRole "y" to Group "z"`, `RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`.
   */
  describe(): string;
}

/** A role's place in the index: present or not, referenced by bindings or not. */
class RoleSlot {
  role: Role | ClusterRole | undefined = undefined;
  /** Bindings pointing here; the slot is dropped when none do and the role is gone. */
  refs = 0;
  private compiled: readonly CompiledRule[] | undefined = undefined;

  get rules(): readonly PolicyRule[] | undefined {
    return this.role === undefined ? undefined : (this.role.rules ?? []);
  }

  set(role: Role | ClusterRole | undefined): void {
    this.role = role;
    this.compiled = undefined;
  }

  matchers(): readonly CompiledRule[] {
    if (this.compiled === undefined) this.compiled = compileRules(this.role?.rules);
    return this.compiled;
  }
}

/** A stored binding, resolved to its role's slot. */
interface BindingEntry {
  readonly kind: "ClusterRoleBinding" | "RoleBinding";
  readonly binding: RoleBinding | ClusterRoleBinding;
  /** `""` for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly slot: RoleSlot;
  readonly slotKey: string;
  /** The postings this binding added, to remove them again. */
  readonly postings: { readonly map: Map<string, Set<Grant>>; readonly key: string; readonly grant: Grant }[];
}

/** A posting: one subject of one binding, filed under a user or group name. */
class Grant implements RBACGrant {
  private description: string | undefined = undefined;

  constructor(
    private readonly entry: BindingEntry,
    readonly subject: Subject,
  ) {}

  get bindingKind(): "ClusterRoleBinding" | "RoleBinding" {
    return this.entry.kind;
  }

  get binding(): RoleBinding | ClusterRoleBinding {
    return this.entry.binding;
  }

  get roleRef(): RoleRef {
    return this.entry.binding.roleRef;
  }

  get rules(): readonly PolicyRule[] | undefined {
    return this.entry.slot.rules;
  }

  allows(request: RBACRequest): boolean {
    const slot = this.entry.slot;
    if (slot.role === undefined) return false;
    const matchers = slot.matchers();
    for (let i = 0; i < matchers.length; i++) if ((matchers[i] as CompiledRule).allows(request)) return true;
    return false;
  }

  describe(): string {
    if (this.description === undefined) {
      const { binding, namespace } = this.entry;
      const ref = binding.roleRef;
      const name = this.entry.kind === "RoleBinding" ? `${binding.metadata.name}/${namespace}` : binding.metadata.name;
      this.description = `${this.entry.kind} ${quote(name)} of ${ref.kind} ${quote(ref.name)} to ${describeSubject(this.subject, namespace)}`;
    }
    return this.description;
  }
}

/** A string quoted as Go's `%q` quotes the names RBAC sees. */
function quote(s: string): string {
  return JSON.stringify(s);
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === "ServiceAccount") {
    return `${subject.kind} ${quote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  }
  return `${subject.kind} ${quote(subject.name)}`;
}

/** Postings by user name (service accounts under their user name) and by group name. */
interface SubjectIndex {
  readonly byUser: Map<string, Set<Grant>>;
  readonly byGroup: Map<string, Set<Grant>>;
}

function newSubjectIndex(): SubjectIndex {
  return { byUser: new Map(), byGroup: new Map() };
}

const sep = "\u0000";

function roleKey(kind: "Role" | "ClusterRole", namespace: string, name: string): string {
  return kind === "ClusterRole" ? `C${sep}${name}` : `R${sep}${namespace}${sep}${name}`;
}

function bindingKey(kind: "RoleBinding" | "ClusterRoleBinding", namespace: string, name: string): string {
  return kind === "ClusterRoleBinding" ? `C${sep}${name}` : `R${sep}${namespace}${sep}${name}`;
}

function objectNamespace(object: { metadata: { namespace?: string } }): string {
  return object.metadata.namespace ?? "";
}

/**
 * Every RBAC object of a server, indexed for authorization. Feed it the initial list with
 * {@link RBACIndex.reset} (or the constructor) and every watch event after with
 * {@link RBACIndex.apply}; the authorizer reads it synchronously.
 *
 * The index keeps the objects it is given (it does not copy them): do not mutate one after
 * handing it over. Events are applied in the order given; an `ADDED` for an object already held
 * replaces it, as does `MODIFIED` for one not yet held.
 *
 * @example
 * const index = new RBACIndex({ clusterRoles, clusterRoleBindings });
 * index.apply({ type: "ADDED", kind: "RoleBinding", object: binding });
 * const authorizer = rbacAuthorizer(index);
 */
export class RBACIndex {
  private readonly slots = new Map<string, RoleSlot>();
  private readonly bindings = new Map<string, BindingEntry>();
  private readonly cluster: SubjectIndex = newSubjectIndex();
  private readonly namespaces = new Map<string, SubjectIndex>();
  private counts = { roles: 0, clusterRoles: 0, roleBindings: 0, clusterRoleBindings: 0 };

  /** An index holding `snapshot` (empty without one). */
  constructor(snapshot?: RBACSnapshot) {
    if (snapshot) this.load(snapshot);
  }

  /** Empties the index, then loads `snapshot` (a relist after a watch expired). */
  reset(snapshot?: RBACSnapshot): void {
    this.slots.clear();
    this.bindings.clear();
    this.cluster.byUser.clear();
    this.cluster.byGroup.clear();
    this.namespaces.clear();
    this.counts = { roles: 0, clusterRoles: 0, roleBindings: 0, clusterRoleBindings: 0 };
    if (snapshot) this.load(snapshot);
  }

  private load(snapshot: RBACSnapshot): void {
    for (const object of snapshot.roles ?? []) this.putRole("Role", object);
    for (const object of snapshot.clusterRoles ?? []) this.putRole("ClusterRole", object);
    for (const object of snapshot.roleBindings ?? []) this.putBinding("RoleBinding", object);
    for (const object of snapshot.clusterRoleBindings ?? []) this.putBinding("ClusterRoleBinding", object);
  }

  /** Applies one watch event: adds, replaces or removes the object it carries. */
  apply(event: RBACEvent): void {
    switch (event.kind) {
      case "Role":
      case "ClusterRole":
        if (event.type === "DELETED") this.deleteRole(event.kind, objectNamespace(event.object), event.object.metadata.name);
        else this.putRole(event.kind, event.object);
        return;
      case "RoleBinding":
      case "ClusterRoleBinding":
        if (event.type === "DELETED") this.deleteBinding(event.kind, objectNamespace(event.object), event.object.metadata.name);
        else this.putBinding(event.kind, event.object);
        return;
    }
  }

  /** The Role `namespace/name`, if held. */
  role(namespace: string, name: string): Role | undefined {
    return this.slots.get(roleKey("Role", namespace, name))?.role as Role | undefined;
  }

  /** The ClusterRole `name`, if held. */
  clusterRole(name: string): ClusterRole | undefined {
    return this.slots.get(roleKey("ClusterRole", "", name))?.role as ClusterRole | undefined;
  }

  /** Every ClusterRole held (for aggregation), in no particular order. */
  *clusterRoles(): IterableIterator<ClusterRole> {
    for (const [key, slot] of this.slots) if (key.startsWith("C") && slot.role) yield slot.role as ClusterRole;
  }

  /** The RoleBinding `namespace/name`, if held. */
  roleBinding(namespace: string, name: string): RoleBinding | undefined {
    return this.bindings.get(bindingKey("RoleBinding", namespace, name))?.binding as RoleBinding | undefined;
  }

  /** The ClusterRoleBinding `name`, if held. */
  clusterRoleBinding(name: string): ClusterRoleBinding | undefined {
    return this.bindings.get(bindingKey("ClusterRoleBinding", "", name))?.binding as ClusterRoleBinding | undefined;
  }

  /** How many objects of each kind the index holds. */
  size(): { roles: number; clusterRoles: number; roleBindings: number; clusterRoleBindings: number } {
    return { ...this.counts };
  }

  /**
   * Visits the grants `user` holds that apply in `namespace` (`""` for cluster scope): those of
   * ClusterRoleBindings first, then those of the namespace's RoleBindings; under each, the
   * grants to the user's name (service accounts included), then to each of its groups in order.
   * Stops at, and returns true for, the first grant `visit` returns true for (as
   * `Array.prototype.some`). Reads only the bindings that name the user or its groups.
   *
   * A binding naming the user through several subjects is visited once per subject.
   */
  someGrant(user: UserInfo, namespace: string, visit: (grant: RBACGrant) => boolean): boolean {
    if (visitIndex(this.cluster, user, visit)) return true;
    if (namespace === "") return false;
    const local = this.namespaces.get(namespace);
    return local !== undefined && visitIndex(local, user, visit);
  }

  /**
   * The grants `user` holds that apply in `namespace`, one per binding (the first subject that
   * names the user), in the order of {@link RBACIndex.someGrant}.
   */
  grantsFor(user: UserInfo, namespace: string): RBACGrant[] {
    const seen = new Set<RoleBinding | ClusterRoleBinding>();
    const out: RBACGrant[] = [];
    this.someGrant(user, namespace, (grant) => {
      if (!seen.has(grant.binding)) {
        seen.add(grant.binding);
        out.push(grant);
      }
      return false;
    });
    return out;
  }

  /**
   * The rules `user` holds in `namespace` (cluster-wide ones included), once per binding, and
   * the role references of its bindings whose role does not exist (they grant nothing).
   */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; missing: RoleRef[] } {
    const rules: PolicyRule[] = [];
    const missing: RoleRef[] = [];
    for (const grant of this.grantsFor(user, namespace)) {
      if (grant.rules === undefined) missing.push(grant.roleRef);
      else rules.push(...grant.rules);
    }
    return { rules, missing };
  }

  private slot(key: string): RoleSlot {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = new RoleSlot();
      this.slots.set(key, slot);
    }
    return slot;
  }

  private putRole(kind: "Role" | "ClusterRole", role: Role | ClusterRole): void {
    const slot = this.slot(roleKey(kind, objectNamespace(role), role.metadata.name));
    if (slot.role === undefined) this.counts[kind === "Role" ? "roles" : "clusterRoles"]++;
    slot.set(role);
  }

  private deleteRole(kind: "Role" | "ClusterRole", namespace: string, name: string): void {
    const key = roleKey(kind, namespace, name);
    const slot = this.slots.get(key);
    if (slot === undefined || slot.role === undefined) return;
    this.counts[kind === "Role" ? "roles" : "clusterRoles"]--;
    slot.set(undefined);
    if (slot.refs === 0) this.slots.delete(key);
  }

  private putBinding(kind: "RoleBinding" | "ClusterRoleBinding", binding: RoleBinding | ClusterRoleBinding): void {
    const namespace = kind === "RoleBinding" ? objectNamespace(binding) : "";
    const key = bindingKey(kind, namespace, binding.metadata.name);
    const previous = this.bindings.get(key);
    if (previous) this.unlink(previous);
    else this.counts[kind === "RoleBinding" ? "roleBindings" : "clusterRoleBindings"]++;

    // A ClusterRoleBinding can only grant a ClusterRole; its reference to a Role looks for a Role
    // with no namespace, which never exists, so it grants nothing (as the reference's lookup).
    const ref = binding.roleRef;
    const slotKey = roleKey(ref.kind === "ClusterRole" ? "ClusterRole" : "Role", namespace, ref.name);
    const slot = this.slot(slotKey);
    slot.refs++;
    const entry: BindingEntry = { kind, binding, namespace, slot, slotKey, postings: [] };
    const index = kind === "ClusterRoleBinding" ? this.cluster : this.namespaceIndex(namespace);
    for (const subject of binding.subjects ?? []) {
      const posting = subjectPosting(subject, namespace, index);
      if (posting === undefined) continue;
      const grant = new Grant(entry, subject);
      let set = posting.map.get(posting.key);
      if (set === undefined) {
        set = new Set();
        posting.map.set(posting.key, set);
      }
      set.add(grant);
      entry.postings.push({ map: posting.map, key: posting.key, grant });
    }
    this.bindings.set(key, entry);
  }

  private deleteBinding(kind: "RoleBinding" | "ClusterRoleBinding", namespace: string, name: string): void {
    const key = bindingKey(kind, kind === "RoleBinding" ? namespace : "", name);
    const entry = this.bindings.get(key);
    if (entry === undefined) return;
    this.unlink(entry);
    this.bindings.delete(key);
    this.counts[kind === "RoleBinding" ? "roleBindings" : "clusterRoleBindings"]--;
    if (entry.kind === "RoleBinding") {
      const local = this.namespaces.get(entry.namespace);
      if (local && local.byUser.size === 0 && local.byGroup.size === 0) this.namespaces.delete(entry.namespace);
    }
  }

  /** Removes the postings of `entry` and its reference to its role's slot. */
  private unlink(entry: BindingEntry): void {
    for (const { map, key: subjectKey, grant } of entry.postings) {
      const set = map.get(subjectKey);
      if (set === undefined) continue;
      set.delete(grant);
      if (set.size === 0) map.delete(subjectKey);
    }
    entry.slot.refs--;
    if (entry.slot.refs === 0 && entry.slot.role === undefined) this.slots.delete(entry.slotKey);
  }

  private namespaceIndex(namespace: string): SubjectIndex {
    let index = this.namespaces.get(namespace);
    if (index === undefined) {
      index = newSubjectIndex();
      this.namespaces.set(namespace, index);
    }
    return index;
  }
}

/**
 * Where a subject is filed: users under their name, groups under theirs, a service account
 * under its user name, its namespace defaulting to the RoleBinding's. A service account with no
 * namespace in a ClusterRoleBinding, and unknown kinds, match nobody.
 */
function subjectPosting(subject: Subject, bindingNamespace: string, index: SubjectIndex): { map: Map<string, Set<Grant>>; key: string } | undefined {
  switch (subject.kind) {
    case "User":
      return { map: index.byUser, key: subject.name };
    case "Group":
      return { map: index.byGroup, key: subject.name };
    case "ServiceAccount": {
      const namespace = subject.namespace || bindingNamespace;
      if (namespace === "") return undefined;
      return { map: index.byUser, key: `system:serviceaccount:${namespace}:${subject.name}` };
    }
    default:
      return undefined;
  }
}

function visitSet(set: Set<Grant> | undefined, visit: (grant: RBACGrant) => boolean): boolean {
  if (set === undefined) return false;
  for (const grant of set) if (visit(grant)) return true;
  return false;
}

function visitIndex(index: SubjectIndex, user: UserInfo, visit: (grant: RBACGrant) => boolean): boolean {
  if (visitSet(index.byUser.get(user.name), visit)) return true;
  const groups = user.groups;
  for (let i = 0; i < groups.length; i++) if (visitSet(index.byGroup.get(groups[i] as string), visit)) return true;
  return false;
}
