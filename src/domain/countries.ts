// Reference data for the countries the service accepts. Subdivision codes are the ISO 3166-2
// codes without the country prefix, which is what merchants already send for payer.address.state.

export interface State {
  readonly code: string;
  readonly name: string;
}

export interface Country {
  readonly code: string;
  readonly name: string;
  /** ISO 4217 code of the currency deposits are collected in. */
  readonly currency: string;
  /** libphonenumber region whose numbering plan applies to domestic numbers. */
  readonly phoneRegion: string;
  /** Accepted payer document types, the first being the most common individual id. */
  readonly documentTypes: readonly string[];
  /** Empty when the country has no list we enforce. */
  readonly states: readonly State[];
  /** Absent when the country has no fixed postal-code format. */
  readonly zipPattern?: RegExp;
}

const s = (pairs: string): State[] =>
  pairs.split(';').map((pair) => {
    const [code, name] = pair.split('=');
    return { code: code!.trim(), name: name!.trim() };
  });

const BR_STATES = s(
  'AC=Acre;AL=Alagoas;AP=Amapá;AM=Amazonas;BA=Bahia;CE=Ceará;DF=Distrito Federal;' +
    'ES=Espírito Santo;GO=Goiás;MA=Maranhão;MT=Mato Grosso;MS=Mato Grosso do Sul;' +
    'MG=Minas Gerais;PA=Pará;PB=Paraíba;PR=Paraná;PE=Pernambuco;PI=Piauí;RJ=Rio de Janeiro;' +
    'RN=Rio Grande do Norte;RS=Rio Grande do Sul;RO=Rondônia;RR=Roraima;SC=Santa Catarina;' +
    'SP=São Paulo;SE=Sergipe;TO=Tocantins',
);

const MX_STATES = s(
  'AGU=Aguascalientes;BCN=Baja California;BCS=Baja California Sur;CAM=Campeche;' +
    'CHP=Chiapas;CHH=Chihuahua;CMX=Ciudad de México;COA=Coahuila;COL=Colima;DUR=Durango;' +
    'GUA=Guanajuato;GRO=Guerrero;HID=Hidalgo;JAL=Jalisco;MEX=Estado de México;' +
    'MIC=Michoacán;MOR=Morelos;NAY=Nayarit;NLE=Nuevo León;OAX=Oaxaca;PUE=Puebla;' +
    'QUE=Querétaro;ROO=Quintana Roo;SLP=San Luis Potosí;SIN=Sinaloa;SON=Sonora;' +
    'TAB=Tabasco;TAM=Tamaulipas;TLA=Tlaxcala;VER=Veracruz;YUC=Yucatán;ZAC=Zacatecas',
);

const AR_STATES = s(
  'C=Ciudad Autónoma de Buenos Aires;B=Buenos Aires;K=Catamarca;H=Chaco;U=Chubut;' +
    'X=Córdoba;W=Corrientes;E=Entre Ríos;P=Formosa;Y=Jujuy;L=La Pampa;F=La Rioja;' +
    'M=Mendoza;N=Misiones;Q=Neuquén;R=Río Negro;A=Salta;J=San Juan;D=San Luis;' +
    'Z=Santa Cruz;S=Santa Fe;G=Santiago del Estero;V=Tierra del Fuego;T=Tucumán',
);

const CO_STATES = s(
  'AMA=Amazonas;ANT=Antioquia;ARA=Arauca;ATL=Atlántico;BOL=Bolívar;BOY=Boyacá;' +
    'CAL=Caldas;CAQ=Caquetá;CAS=Casanare;CAU=Cauca;CES=Cesar;CHO=Chocó;COR=Córdoba;' +
    'CUN=Cundinamarca;DC=Bogotá D.C.;GUA=Guainía;GUV=Guaviare;HUI=Huila;LAG=La Guajira;' +
    'MAG=Magdalena;MET=Meta;NAR=Nariño;NSA=Norte de Santander;PUT=Putumayo;QUI=Quindío;' +
    'RIS=Risaralda;SAP=San Andrés, Providencia y Santa Catalina;SAN=Santander;SUC=Sucre;' +
    'TOL=Tolima;VAC=Valle del Cauca;VAU=Vaupés;VID=Vichada',
);

const CL_STATES = s(
  'AP=Arica y Parinacota;TA=Tarapacá;AN=Antofagasta;AT=Atacama;CO=Coquimbo;' +
    'VS=Valparaíso;RM=Región Metropolitana de Santiago;' +
    "LI=Libertador General Bernardo O'Higgins;ML=Maule;NB=Ñuble;BI=Biobío;" +
    'AR=La Araucanía;LR=Los Ríos;LL=Los Lagos;' +
    'AI=Aysén del General Carlos Ibáñez del Campo;MA=Magallanes y de la Antártica Chilena',
);

// Lima Province (ISO LMA) is left out: its name would collide with the Lima region.
const PE_STATES = s(
  'AMA=Amazonas;ANC=Áncash;APU=Apurímac;ARE=Arequipa;AYA=Ayacucho;CAJ=Cajamarca;' +
    'CAL=Callao;CUS=Cusco;HUV=Huancavelica;HUC=Huánuco;ICA=Ica;JUN=Junín;' +
    'LAL=La Libertad;LAM=Lambayeque;LIM=Lima;LOR=Loreto;MDD=Madre de Dios;' +
    'MOQ=Moquegua;PAS=Pasco;PIU=Piura;PUN=Puno;SAM=San Martín;TAC=Tacna;' +
    'TUM=Tumbes;UCA=Ucayali',
);

const EC_STATES = s(
  'A=Azuay;B=Bolívar;F=Cañar;C=Carchi;H=Chimborazo;X=Cotopaxi;O=El Oro;E=Esmeraldas;' +
    'W=Galápagos;G=Guayas;I=Imbabura;L=Loja;R=Los Ríos;M=Manabí;S=Morona Santiago;' +
    'N=Napo;D=Orellana;Y=Pastaza;P=Pichincha;SE=Santa Elena;' +
    'SD=Santo Domingo de los Tsáchilas;U=Sucumbíos;T=Tungurahua;Z=Zamora Chinchipe',
);

const UY_STATES = s(
  'AR=Artigas;CA=Canelones;CL=Cerro Largo;CO=Colonia;DU=Durazno;FS=Flores;FD=Florida;' +
    'LA=Lavalleja;MA=Maldonado;MO=Montevideo;PA=Paysandú;RN=Río Negro;RV=Rivera;' +
    'RO=Rocha;SA=Salto;SJ=San José;SO=Soriano;TA=Tacuarembó;TT=Treinta y Tres',
);

const PY_STATES = s(
  'ASU=Asunción;1=Concepción;2=San Pedro;3=Cordillera;4=Guairá;5=Caaguazú;6=Caazapá;' +
    '7=Itapúa;8=Misiones;9=Paraguarí;10=Alto Paraná;11=Central;12=Ñeembucú;' +
    '13=Amambay;14=Canindeyú;15=Presidente Hayes;16=Alto Paraguay;19=Boquerón',
);

const PA_STATES = s(
  '1=Bocas del Toro;2=Coclé;3=Colón;4=Chiriquí;5=Darién;6=Herrera;7=Los Santos;' +
    '8=Panamá;9=Veraguas;10=Panamá Oeste;EM=Emberá;KY=Guna Yala;NB=Ngäbe-Buglé;' +
    'NT=Naso Tjër Di',
);

const CM_STATES = s(
  'AD=Adamaoua;CE=Centre;ES=Est;EN=Extrême-Nord;LT=Littoral;NO=Nord;NW=Nord-Ouest;' +
    'OU=Ouest;SU=Sud;SW=Sud-Ouest',
);

// Mainland provinces only: Hong Kong and Macao collect in their own currencies.
const CN_STATES = s(
  'AH=Anhui;BJ=Beijing;CQ=Chongqing;FJ=Fujian;GS=Gansu;GD=Guangdong;GX=Guangxi;' +
    'GZ=Guizhou;HI=Hainan;HE=Hebei;HL=Heilongjiang;HA=Henan;HB=Hubei;HN=Hunan;' +
    'JS=Jiangsu;JX=Jiangxi;JL=Jilin;LN=Liaoning;NM=Nei Mongol;NX=Ningxia;QH=Qinghai;' +
    'SN=Shaanxi;SD=Shandong;SH=Shanghai;SX=Shanxi;SC=Sichuan;TJ=Tianjin;XZ=Xizang;' +
    'XJ=Xinjiang;YN=Yunnan;ZJ=Zhejiang',
);

const GH_STATES = s(
  'AF=Ahafo;AH=Ashanti;BO=Bono;BE=Bono East;CP=Central;EP=Eastern;AA=Greater Accra;' +
    'NE=North East;NP=Northern;OT=Oti;SV=Savannah;UE=Upper East;UW=Upper West;' +
    'TV=Volta;WP=Western;WN=Western North',
);

const IN_STATES = s(
  'AN=Andaman and Nicobar Islands;AP=Andhra Pradesh;AR=Arunachal Pradesh;AS=Assam;' +
    'BR=Bihar;CH=Chandigarh;CG=Chhattisgarh;' +
    'DH=Dadra and Nagar Haveli and Daman and Diu;DL=Delhi;GA=Goa;GJ=Gujarat;' +
    'HR=Haryana;HP=Himachal Pradesh;JK=Jammu and Kashmir;JH=Jharkhand;KA=Karnataka;' +
    'KL=Kerala;LA=Ladakh;LD=Lakshadweep;MP=Madhya Pradesh;MH=Maharashtra;MN=Manipur;' +
    'ML=Meghalaya;MZ=Mizoram;NL=Nagaland;OD=Odisha;PY=Puducherry;PB=Punjab;' +
    'RJ=Rajasthan;SK=Sikkim;TN=Tamil Nadu;TS=Telangana;TR=Tripura;UP=Uttar Pradesh;' +
    'UK=Uttarakhand;WB=West Bengal',
);

const MY_STATES = s(
  '01=Johor;02=Kedah;03=Kelantan;04=Melaka;05=Negeri Sembilan;06=Pahang;' +
    '07=Pulau Pinang;08=Perak;09=Perlis;10=Selangor;11=Terengganu;12=Sabah;13=Sarawak;' +
    '14=Kuala Lumpur;15=Labuan;16=Putrajaya',
);

const NG_STATES = s(
  'AB=Abia;AD=Adamawa;AK=Akwa Ibom;AN=Anambra;BA=Bauchi;BY=Bayelsa;BE=Benue;BO=Borno;' +
    'CR=Cross River;DE=Delta;EB=Ebonyi;ED=Edo;EK=Ekiti;EN=Enugu;FC=Federal Capital Territory;' +
    'GO=Gombe;IM=Imo;JI=Jigawa;KD=Kaduna;KN=Kano;KT=Katsina;KE=Kebbi;KO=Kogi;KW=Kwara;' +
    'LA=Lagos;NA=Nasarawa;NI=Niger;OG=Ogun;ON=Ondo;OS=Osun;OY=Oyo;PL=Plateau;RI=Rivers;' +
    'SO=Sokoto;TA=Taraba;YO=Yobe;ZA=Zamfara',
);

const ZA_STATES = s(
  'EC=Eastern Cape;FS=Free State;GP=Gauteng;KZN=KwaZulu-Natal;LP=Limpopo;' +
    'MP=Mpumalanga;NC=Northern Cape;NW=North West;WC=Western Cape',
);

const digits = (n: number) => new RegExp(`^\\d{${n}}$`);

const c = (
  code: string,
  name: string,
  currency: string,
  documentTypes: string[],
  states: State[] = [],
  zipPattern?: RegExp,
): Country => ({ code, name, currency, phoneRegion: code, documentTypes, states, zipPattern });

export const ACCEPTED_COUNTRIES: readonly Country[] = [
  c('AR', 'Argentina', 'ARS', ['DNI', 'CUIT', 'CUIL'], AR_STATES, /^(\d{4}|[A-Z]\d{4}[A-Z]{3})$/),
  c('BR', 'Brazil', 'BRL', ['CPF', 'CNPJ'], BR_STATES, /^\d{5}-?\d{3}$/),
  c('CL', 'Chile', 'CLP', ['RUT'], CL_STATES, digits(7)),
  c('CM', 'Cameroon', 'XAF', ['CNI', 'NIU', 'PP'], CM_STATES),
  c('CN', 'China', 'CNY', ['RIC', 'USCC', 'PP'], CN_STATES, digits(6)),
  c('CO', 'Colombia', 'COP', ['CC', 'CE', 'NIT', 'PP'], CO_STATES, digits(6)),
  c('EC', 'Ecuador', 'USD', ['CI', 'RUC', 'PP'], EC_STATES, digits(6)),
  c('GH', 'Ghana', 'GHS', ['ID', 'TIN', 'PP'], GH_STATES),
  c('IN', 'India', 'INR', ['PAN', 'AADHAAR'], IN_STATES, /^[1-9]\d{2} ?\d{3}$/),
  c('ID', 'Indonesia', 'IDR', ['NIK', 'NPWP', 'PP'], [], digits(5)),
  c('KE', 'Kenya', 'KES', ['ID', 'PIN', 'PP'], [], digits(5)),
  c('MY', 'Malaysia', 'MYR', ['NRIC', 'MYKAD', 'PP'], MY_STATES, digits(5)),
  c('MX', 'Mexico', 'MXN', ['CURP', 'RFC'], MX_STATES, digits(5)),
  c('NG', 'Nigeria', 'NGN', ['NIN', 'BVN', 'TIN'], NG_STATES, digits(6)),
  c('PA', 'Panama', 'USD', ['CIP', 'RUC', 'PP'], PA_STATES),
  c('PE', 'Peru', 'PEN', ['DNI', 'RUC', 'CE', 'PP'], PE_STATES, digits(5)),
  c('PH', 'Philippines', 'PHP', ['TIN', 'PCN', 'PP'], [], digits(4)),
  c('PY', 'Paraguay', 'PYG', ['CI', 'RUC'], PY_STATES, /^\d{4,6}$/),
  c('TH', 'Thailand', 'THB', ['ID', 'TIN', 'PP'], [], digits(5)),
  c('TZ', 'Tanzania', 'TZS', ['NIDA', 'TIN', 'PP'], [], digits(5)),
  c('UG', 'Uganda', 'UGX', ['NIN', 'TIN', 'PP'], []),
  c('UY', 'Uruguay', 'UYU', ['CI', 'RUT'], UY_STATES, digits(5)),
  c('VN', 'Vietnam', 'VND', ['CCCD', 'MST', 'PP'], [], /^\d{5,6}$/),
  c('ZA', 'South Africa', 'ZAR', ['ID', 'TIN', 'PP'], ZA_STATES, digits(4)),
];

const BY_CODE = new Map(ACCEPTED_COUNTRIES.map((country) => [country.code, country]));

export const ACCEPTED_COUNTRY_CODES: readonly string[] = ACCEPTED_COUNTRIES.map((x) => x.code);

export function getCountry(code: string): Country | undefined {
  return BY_CODE.get(code.toUpperCase());
}

export function isCountryAccepted(code: string): boolean {
  return BY_CODE.has(code.toUpperCase());
}

// ISO 4217 List One as of 2025 (incl. fund codes and metals). Left out: XTS and XXX, which
// denote "testing" and "no currency" and can never be the currency of a transaction, and codes
// replaced by a successor (HRK by EUR, ZWL by ZWG, ANG by XCG, SLL by SLE, CUC abolished).
export const ISO_CURRENCIES: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN ' +
    'BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ' +
    'ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ' +
    'ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA ' +
    'MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK ' +
    'PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC ' +
    'SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND ' +
    'VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG'
  ).split(' '),
);
