/**
 * Test-only PKI fixtures, made once with OpenSSL (ECDSA P-256): a CA valid from 2026-11-24 to
 * 2051 with its PKCS#8 key, and PKCS#10 requests. Imported by tests only, never by the
 * package's entry; the key signs nothing outside these tests.
 * @module
 */

/** The test CA: certificate and PKCS#8 private key, PEM. */
export const testCA = {
  certPem: `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUei3EK4WAFNUF53Br91LJpUEB6zswCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMb3JjaC10ZXN0LWNhMCAXDTI2MTEyNDEwMDQyM1oYDzIwNTEw
NzE2MTAwNDIzWjAXMRUwEwYDVQQDDAxvcmNoLXRlc3QtY2EwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAQKA+qigZUJUjZqELlwjEmhtkDgk/GAPwFSMpeqPxQtl/g8
BsY+d7eKDrlnCGonu71LfHWqAHK6j2m11QZF1TS9o2MwYTAdBgNVHQ4EFgQUIleO
x+CUwAgZRmRrv3Js2hx2pg0wHwYDVR0jBBgwFoAUIleOx+CUwAgZRmRrv3Js2hx2
pg0wDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwID
SQAwRgIhAL3o8gyMF0HVTBSwUZ31rHVLbxN6InbPBxAy9KbeFxnyAiEApwEJgbzz
85ScTbq1fwyyU6i2lZcssFFH/FFEWsZKxyI=
-----END CERTIFICATE-----
`,
  keyPem: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3hG6xkWr1fXSMpk+
UyAugE4ln9SX0fJCsmRDufOS8iShRANCAAQKA+qigZUJUjZqELlwjEmhtkDgk/GA
PwFSMpeqPxQtl/g8BsY+d7eKDrlnCGonu71LfHWqAHK6j2m11QZF1TS9
-----END PRIVATE KEY-----
`,
};

/** A request for `CN=system:node:n1, O=system:nodes` without subject alternative names. */
export const nodeN1Request = `-----BEGIN CERTIFICATE REQUEST-----
MIHrMIGSAgEAMDAxFTATBgNVBAoMDHN5c3RlbTpub2RlczEXMBUGA1UEAwwOc3lz
dGVtOm5vZGU6bjEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR/2B1tIXIlINsD
1ejGPkHPA2hsTEkLWRPKCwuJbDd0uRO3OvDmeUYN+mj3an+/nGjyd+FBQi8RcKwB
DE+VXLEDoAAwCgYIKoZIzj0EAwIDSAAwRQIge5kXX3v4KfCX6/5gUDDhFL9ZqVZJ
cXZvf7QqnO788VsCIQC1XFBX/w1tN4FcnSxnIssdQKFjhN/Xp0h7yGj/m2vzWw==
-----END CERTIFICATE REQUEST-----
`;

/** A request for `CN=system:node:n2, O=system:nodes` without subject alternative names. */
export const nodeN2Request = `-----BEGIN CERTIFICATE REQUEST-----
MIHrMIGSAgEAMDAxFTATBgNVBAoMDHN5c3RlbTpub2RlczEXMBUGA1UEAwwOc3lz
dGVtOm5vZGU6bjIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR/2B1tIXIlINsD
1ejGPkHPA2hsTEkLWRPKCwuJbDd0uRO3OvDmeUYN+mj3an+/nGjyd+FBQi8RcKwB
DE+VXLEDoAAwCgYIKoZIzj0EAwIDSAAwRQIgJ7Ls8oCo58drBAEuIRsmAZHH2CU4
IRaO0sgtdqQVTJQCIQDXuOdMo2FKFVgZ2AkN4OHmMOLW5bOgeh/8qW0TOdUSVA==
-----END CERTIFICATE REQUEST-----
`;

/** A request for `CN=alice, O=dev`. */
export const aliceRequest = `-----BEGIN CERTIFICATE REQUEST-----
MIHaMIGAAgEAMB4xDDAKBgNVBAoMA2RldjEOMAwGA1UEAwwFYWxpY2UwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAR/2B1tIXIlINsD1ejGPkHPA2hsTEkLWRPKCwuJ
bDd0uRO3OvDmeUYN+mj3an+/nGjyd+FBQi8RcKwBDE+VXLEDoAAwCgYIKoZIzj0E
AwIDSQAwRgIhAIJrsdLT1h40W56FgnBoapfbsU5RrecEGpTErI5ZIGDWAiEAzHtE
JvHoIhyGY1af1mlE5x0wwnbsfAvKC6lE1y3lSLc=
-----END CERTIFICATE REQUEST-----
`;
