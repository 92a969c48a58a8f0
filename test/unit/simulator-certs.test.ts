// The simulators' certificates must always be readable by OpenSSL: a serial whose DER INTEGER
// carried a padding byte made about one simulator start in 400 fail with "illegal padding".
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import test from 'node:test';
import forge from 'node-forge';
import { positiveSerial } from '../../src/connectors/pix/simulator/certs.ts';

test('certificate serials: 16 bytes, first byte 0x01-0x7f, and OpenSSL reads every certificate signed with one', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  const subject = [{ name: 'commonName', value: 'serial test' }];
  for (let i = 0; i < 200; i++) {
    const serial = positiveSerial();
    assert.match(serial, /^[0-7][0-9a-f]{31}$/);
    assert.notEqual(serial.slice(0, 2), '00');
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
    cert.serialNumber = serial;
    cert.validity.notBefore = new Date();
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.sign(key, forge.md.sha256.create());
    const parsed = new X509Certificate(forge.pki.certificateToPem(cert));
    assert.equal(parsed.serialNumber.toLowerCase(), serial);
  }
});
