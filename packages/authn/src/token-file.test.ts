import { describe, expect, it } from "vitest";
import { parseTokenFile } from "./token-file.js";

const userOf = async (text: string, token: string) => (await parseTokenFile(text).authenticateToken(token))?.user;

describe("parseTokenFile", () => {
  it("maps each token to its user, uid and groups", async () => {
    const file = parseTokenFile('t1,alice,uid-1,"dev,ops"\nt2,bob,uid-2\n');
    expect(file.size).toBe(2);
    expect(await file.authenticateToken("t1")).toEqual({ user: { name: "alice", uid: "uid-1", groups: ["dev", "ops"] } });
    expect(await file.authenticateToken("t2")).toEqual({ user: { name: "bob", uid: "uid-2", groups: [] } });
  });

  it("has no opinion on an unknown token", async () => {
    const file = parseTokenFile("t1,alice,uid-1\n");
    expect(await file.authenticateToken("t2")).toBeUndefined();
    expect(await file.authenticateToken("")).toBeUndefined();
    expect(await file.authenticateToken("T1")).toBeUndefined();
  });

  it("omits an empty uid, and trims groups and drops empty ones", async () => {
    expect(await userOf('t,alice,," dev , ,ops,"', "t")).toEqual({ name: "alice", groups: ["dev", "ops"] });
    expect(await userOf("t,alice,,", "t")).toEqual({ name: "alice", groups: [] });
  });

  it("ignores fields after the groups", async () => {
    expect(await userOf("t,alice,1,g,extra,more", "t")).toEqual({ name: "alice", uid: "1", groups: ["g"] });
  });

  it("reads quoted fields with escaped quotes, commas and line breaks", async () => {
    const file = parseTokenFile('"a""b",  "Alice ""A"", Smith",uid,"x,""y"""\r\n"multi\r\nline",carol,3\n');
    expect((await file.authenticateToken('a"b'))?.user).toEqual({ name: 'Alice "A", Smith', uid: "uid", groups: ["x", '"y"'] });
    expect((await file.authenticateToken("multi\nline"))?.user.name).toBe("carol");
  });

  it("ignores leading white space of a field but keeps trailing white space", async () => {
    const file = parseTokenFile("  t1 ,\t alice, 7 , g \n");
    expect((await file.authenticateToken("t1 "))?.user).toEqual({ name: "alice", uid: "7 ", groups: ["g"] });
  });

  it("skips blank lines, CRLF line ends, a missing final line end and a byte order mark", async () => {
    const file = parseTokenFile("\uFEFF\n\nt1,alice,1\r\n   \r\n\nt2,bob,2");
    expect(file.size).toBe(2);
    expect((await file.authenticateToken("t2"))?.user.name).toBe("bob");
    expect(parseTokenFile("").size).toBe(0);
  });

  it("lets the later of duplicate tokens win, with a warning naming both lines and not the token", async () => {
    const file = parseTokenFile("secret,alice,1\nother,bob,2\nsecret,carol,3\n");
    expect((await file.authenticateToken("secret"))?.user.name).toBe("carol");
    expect(file.size).toBe(2);
    expect(file.warnings).toEqual(["token file line 3: duplicate token (also on line 1); this later record wins"]);
    expect(file.warnings.join()).not.toContain("secret");
    expect(parseTokenFile("a,b,c\n").warnings).toEqual([]);
  });

  it("returns a fresh user each time", async () => {
    const file = parseTokenFile("t,alice,1,g\n");
    const first = await file.authenticateToken("t");
    first?.user.groups.push("system:masters");
    expect((await file.authenticateToken("t"))?.user.groups).toEqual(["g"]);
  });

  it("refuses a record with fewer than 3 fields, naming its line", () => {
    expect(() => parseTokenFile("t1,alice,1\n\nt2,bob\n")).toThrow("token file line 3: expected at least 3 fields (token, user name, uid), found 2");
    expect(() => parseTokenFile("justatoken")).toThrow("token file line 1: expected at least 3 fields (token, user name, uid), found 1");
  });

  it("refuses an empty token or user name, naming the line", () => {
    expect(() => parseTokenFile("t1,alice,1\n,bob,2\n")).toThrow("token file line 2: empty token");
    expect(() => parseTokenFile('t1,alice,1\n"multi\nline",bob,2\nt3,,3\n')).toThrow("token file line 4: empty user name");
  });

  it("refuses malformed quoting, naming the line", () => {
    expect(() => parseTokenFile('t1,alice,1\nt"2,bob,2\n')).toThrow('token file line 2: bare " in non-quoted field');
    expect(() => parseTokenFile('t1,alice,1\n"t2"x,bob,2\n')).toThrow('token file line 2: extraneous or missing " in quoted field');
    expect(() => parseTokenFile('t1,alice,1\nt2,"bob\n,2\n')).toThrow("token file line 2: quoted field is not closed");
    expect(() => parseTokenFile('t1,"ali\nce" ,1\n')).toThrow('token file line 2: extraneous or missing " in quoted field');
  });

  it("keeps token values out of error messages", () => {
    expect(() => parseTokenFile("supersecret,\n")).toThrow(/^token file line 1: expected at least 3 fields/);
    expect(() => parseTokenFile('supersecret"x,alice,1\n')).toThrow(/^token file line 1: bare " in non-quoted field$/);
  });
});
