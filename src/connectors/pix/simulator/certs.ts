// The simulated PSP's public-key infrastructure: its own certificate authority, the API's
// server certificate (127.0.0.1, ::1, localhost) and the client certificate "the PSP issued" to
// caja, all signed by that CA. Keys are made by Node's crypto (native, fast); node-forge builds
// and signs the X.509 certificates, which Node cannot do by itself.
//   Everything is written as PEM under the state directory and read back on a restart, so a
// restarted simulator keeps the identity caja was configured with.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

export interface Pem {
  cert: string;
  key: string;
}

export interface Pki {
  ca: Pem;
  server: Pem;
  client: Pem;
  files: { ca: string; caKey: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
}

const DAY = 24 * 3600 * 1000;

function rsaKeys(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

/** 16 random bytes as hex whose DER INTEGER is minimal and positive: the first byte is 0x01-0x7f.
 * (An odd-length hex starting with '0' made forge write a padding zero byte when the random part
 * began with 0x00: about 1 certificate in 400 was refused by OpenSSL as "illegal padding".) */
export function positiveSerial(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}

interface Issue {
  subjectCn: string;
  publicPem: string;
  issuer: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } | 'self';
  selfKey?: forge.pki.rsa.PrivateKey;
  extensions: object[];
}

function issue({ subjectCn, publicPem, issuer, selfKey, extensions }: Issue): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  cert.serialNumber = positiveSerial();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - DAY);
  cert.validity.notAfter = new Date(now + 2 * 365 * DAY);
  const subject = [
    { name: 'commonName', value: subjectCn },
    { name: 'organizationName', value: 'caja Pix PSP simulator' },
    { name: 'countryName', value: 'BR' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(issuer === 'self' ? subject : issuer.cert.subject.attributes);
  cert.setExtensions(extensions);
  cert.sign(issuer === 'self' ? selfKey! : issuer.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

function generate(clientCn: string): Omit<Pki, 'files'> {
  const caKeys = rsaKeys();
  const caKey = forge.pki.privateKeyFromPem(caKeys.privatePem) as forge.pki.rsa.PrivateKey;
  const caCertPem = issue({
    subjectCn: 'caja Pix PSP simulator CA',
    publicPem: caKeys.publicPem,
    issuer: 'self',
    selfKey: caKey,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
  });
  const issuer = { cert: forge.pki.certificateFromPem(caCertPem), key: caKey };

  const serverKeys = rsaKeys();
  const serverCert = issue({
    subjectCn: 'localhost',
    publicPem: serverKeys.publicPem,
    issuer,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      // clientAuth too: the PSP presents it when it calls https webhooks (mTLS, as PSPs do).
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });

  const clientKeys = rsaKeys();
  const clientCert = issue({
    subjectCn: clientCn,
    publicPem: clientKeys.publicPem,
    issuer,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });

  return {
    ca: { cert: caCertPem, key: caKeys.privatePem },
    server: { cert: serverCert, key: serverKeys.privatePem },
    client: { cert: clientCert, key: clientKeys.privatePem },
  };
}

/** Reads the PKI from `dir`, or makes and writes it there when absent. `clientCn` names caja's certificate. */
export function loadOrCreatePki(dir: string, clientCn: string): Pki {
  mkdirSync(dir, { recursive: true });
  const files = {
    ca: join(dir, 'ca.pem'),
    caKey: join(dir, 'ca-key.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server-key.pem'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client-key.pem'),
  };
  if (Object.values(files).every((f) => existsSync(f))) {
    const read = (f: string) => readFileSync(f, 'utf8');
    return {
      ca: { cert: read(files.ca), key: read(files.caKey) },
      server: { cert: read(files.serverCert), key: read(files.serverKey) },
      client: { cert: read(files.clientCert), key: read(files.clientKey) },
      files,
    };
  }
  const pki = generate(clientCn);
  const write = (f: string, text: string, secret: boolean) => writeFileSync(f, text, { mode: secret ? 0o600 : 0o644 });
  write(files.ca, pki.ca.cert, false);
  write(files.caKey, pki.ca.key, true);
  write(files.serverCert, pki.server.cert, false);
  write(files.serverKey, pki.server.key, true);
  write(files.clientCert, pki.client.cert, false);
  write(files.clientKey, pki.client.key, true);
  return { ...pki, files };
}
