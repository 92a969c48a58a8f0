import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDocument, documentTypesFor } from '../../src/domain/documents.ts';
import { ACCEPTED_COUNTRIES } from '../../src/domain/countries.ts';

function ok(country: string, doc: string, type: string, normalized: string, given?: string) {
  assert.deepEqual(validateDocument(country, doc, given), { ok: true, type, normalized }, `${country} ${doc}`);
}
function bad(country: string, doc: string, reason: string | RegExp, given?: string) {
  const r = validateDocument(country, doc, given);
  assert.equal(r.ok, false, `${country} ${doc} should be rejected`);
  if (!r.ok) {
    if (typeof reason === 'string') assert.equal(r.reason, reason);
    else assert.match(r.reason, reason);
  }
}

test('every country in the catalog of countries has rules for exactly its document types', () => {
  for (const c of ACCEPTED_COUNTRIES) {
    assert.deepEqual([...documentTypesFor(c.code)].sort(), [...c.documentTypes].sort(), c.code);
  }
});

test('BR: CPF and CNPJ detected by length, punctuation accepted', () => {
  ok('BR', '390.533.447-05', 'CPF', '39053344705');
  ok('BR', '39053344705', 'CPF', '39053344705', 'cpf');
  ok('BR', '16.727.230/0001-97', 'CNPJ', '16727230000197');
  ok('BR', '12.ABC.345/01DE-35', 'CNPJ', '12ABC34501DE35');
  bad('BR', '390.533.447-06', 'invalid CPF check digits');
  bad('BR', '16.727.230/0001-98', 'invalid CNPJ check digits');
  bad('BR', '111.111.111-11', /^invalid CPF/);
  bad('BR', '1234567', 'must be 11 digits (CPF) or 14 digits (CNPJ)');
  bad('BR', '39053344705', 'must be 14 digits (CNPJ)', 'CNPJ');
  bad('BR', '39053344705', "unknown document type 'XYZ' for BR; accepted: CPF, CNPJ", 'XYZ');
});

test('AR: DNI, CUIT, CUIL', () => {
  ok('AR', '20.123.456', 'DNI', '20123456');
  ok('AR', '20-05536168-2', 'CUIT', '20055361682');
  ok('AR', '20-05536168-2', 'CUIL', '20055361682', 'CUIL');
  ok('AR', '30-71234567-1', 'CUIT', '30712345671');
  bad('AR', '30-71234567-1', /^invalid CUIL: must start with 20, 23, 24 or 27/, 'CUIL');
  bad('AR', '20267565392', 'invalid CUIT check digits');
  bad('AR', '123', /^must be 7 or 8 digits \(DNI\) or 11 digits \(CUIT\)$/);
});

test('CL: RUT with numeric and K check digit', () => {
  ok('CL', '12.531.909-2', 'RUT', '125319092');
  ok('CL', '76086428-5', 'RUT', '760864285');
  ok('CL', '10.000.013-k', 'RUT', '10000013K');
  bad('CL', '12.531.909-3', 'invalid RUT check digits');
});

test('CO: CC by default, NIT when the check digit is written with a dash', () => {
  ok('CO', '1.020.304.050', 'CC', '1020304050');
  ok('CO', '900.123.456-8', 'NIT', '9001234568');
  ok('CO', '900123456-8', 'NIT', '9001234568', 'NIT');
  bad('CO', '900.123.456-7', 'invalid NIT check digits');
  ok('CO', '456789', 'CE', '456789', 'CE');
  ok('CO', 'AB123456', 'PP', 'AB123456', 'PP');
  bad('CO', '12345', /^must be 6 to 10 digits \(CC\)/);
});

test('MX: CURP and RFC', () => {
  ok('MX', 'BOXW310820HNERXN09', 'CURP', 'BOXW310820HNERXN09');
  ok('MX', 'GODE 561231 GR8', 'RFC', 'GODE561231GR8');
  ok('MX', 'MAB-930714-8T4', 'RFC', 'MAB9307148T4');
  bad('MX', 'BOXW310820HNERXN08', 'invalid CURP check digits');
  bad('MX', 'GODE561231GR9', 'invalid RFC check digits');
  bad('MX', 'BOXW311320HNERXN09', /^invalid CURP: /);
});

test('PE: DNI, RUC, CE', () => {
  ok('PE', '10117410', 'DNI', '10117410');
  ok('PE', '10117410-2', 'DNI', '10117410');
  bad('PE', '10117410-3', 'invalid DNI check digits');
  ok('PE', '20512333797', 'RUC', '20512333797');
  bad('PE', '20512333798', 'invalid RUC check digits');
  ok('PE', '001766062', 'CE', '001766062');
});

test('EC: CI and RUC', () => {
  ok('EC', '171430710-3', 'CI', '1714307103');
  ok('EC', '0912345675', 'CI', '0912345675');
  bad('EC', '1714307104', 'invalid CI check digits');
  bad('EC', '2714307104', 'invalid CI: unknown province code');
  ok('EC', '1792060346-001', 'RUC', '1792060346001');
  bad('EC', '1792060347-001', 'invalid RUC check digits');
});

test('UY: CI (7 or 8 digits) and RUT', () => {
  ok('UY', '1.234.567-2', 'CI', '12345672');
  ok('UY', '345.678-7', 'CI', '03456787');
  bad('UY', '1.234.567-3', 'invalid CI check digits');
  ok('UY', '21-100342-001-7', 'RUT', '211003420017');
  bad('UY', '210303670014', 'invalid RUT check digits');
});

test('PY: CI, and RUC when the check digit is dashed', () => {
  ok('PY', '3 785 123', 'CI', '3785123');
  ok('PY', '80028061-0', 'RUC', '800280610');
  ok('PY', '4567890-1', 'RUC', '45678901');
  bad('PY', '2660-4', 'invalid RUC check digits');
});

test('Asia: CN, IN, ID, MY, TH, VN, PH', () => {
  ok('CN', '360426199101010071', 'RIC', '360426199101010071');
  bad('CN', '360426199101010072', 'invalid RIC check digits');
  ok('CN', '91110000600037341L', 'USCC', '91110000600037341L');
  ok('IN', 'ACUPA7085R', 'PAN', 'ACUPA7085R');
  bad('IN', 'ABMXA3211G', /^invalid PAN: /);
  ok('IN', '2341 2341 2346', 'AADHAAR', '234123412346');
  bad('IN', '234123412347', 'invalid AADHAAR check digits');
  ok('ID', '3171014501900001', 'NIK', '3171014501900001');
  bad('ID', '3171013201900001', 'invalid NIK: birth date part is not a date');
  ok('ID', '01.312.166.0-091.000', 'NPWP', '013121660091000');
  ok('MY', '770305-02-1234', 'NRIC', '770305021234');
  ok('MY', '770305-02-1234', 'MYKAD', '770305021234', 'MYKAD');
  bad('MY', '771305-02-1234', /^invalid NRIC: /);
  ok('TH', '1-1120-34563-56-2', 'ID', '1112034563562');
  ok('TH', '0994000165510', 'TIN', '0994000165510');
  bad('TH', '1101700230705', /^invalid (ID|TIN)/);
  ok('VN', '0100233488', 'MST', '0100233488');
  bad('VN', '0100233480', 'invalid MST check digits');
  ok('VN', '001090012345', 'CCCD', '001090012345');
  ok('PH', '123-456-789-000', 'TIN', '123456789000');
});

test('Africa: ZA, NG, KE, GH, TZ, UG, CM', () => {
  ok('ZA', '7503305044089', 'ID', '7503305044089');
  bad('ZA', '8503305044089', 'invalid ID check digits');
  ok('ZA', '0001339050', 'TIN', '0001339050');
  ok('NG', '12345678901', 'NIN', '12345678901');
  ok('NG', '12345678901', 'BVN', '12345678901', 'BVN');
  ok('NG', '12345678-0001', 'TIN', '123456780001');
  bad('NG', '1234', /^must be 11 digits \(NIN\) or 10 or 12 digits \(TIN\)$/);
  ok('KE', 'P051365947M', 'PIN', 'P051365947M');
  ok('KE', '12345678', 'ID', '12345678');
  ok('GH', 'C0000803561', 'TIN', 'C0000803561');
  bad('GH', 'C0000803562', 'invalid TIN check digits');
  ok('GH', 'GHA-123456789-0', 'ID', 'GHA1234567890');
  ok('TZ', '19900101-12345-12345-12', 'NIDA', '19900101123451234512');
  bad('TZ', '19901301123451234512', 'invalid NIDA: birth date part is not a date');
  ok('UG', 'CM12345678ABCD', 'NIN', 'CM12345678ABCD');
  ok('CM', 'M041200012345A', 'NIU', 'M041200012345A');
});

test('PA: cédula keeps its dashes', () => {
  ok('PA', '8-123-4567', 'CIP', '8-123-4567');
  ok('PA', 'pe-12-345', 'CIP', 'PE-12-345');
  ok('PA', '155596713-2-2015', 'RUC', '155596713-2-2015');
  bad('PA', '81234567', /^must be province-book-entry/);
});

test('general rejections', () => {
  bad('US', '123', "country 'US' is not accepted");
  bad('BR', '   ', 'document is required');
  bad('BR', 'ABC', /^must be/);
});
