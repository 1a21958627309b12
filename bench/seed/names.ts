import type { Random } from './random.js';

/** Words the made-up data is built from: people, places, programme themes, donors. */

export const FEMALE_NAMES = [
  'Amina', 'Grace', 'Esther', 'Fatuma', 'Mary', 'Aisha', 'Joyce', 'Sarah', 'Halima', 'Agnes', 'Rose',
  'Mercy', 'Zawadi', 'Neema', 'Ruth', 'Faith', 'Beatrice', 'Jane', 'Lucy', 'Winnie', 'Hawa', 'Asha',
  'Christine', 'Florence', 'Alem', 'Tigist', 'Chisomo', 'Thandiwe',
]; // prettier-ignore

export const MALE_NAMES = [
  'John', 'Joseph', 'Peter', 'Moses', 'Ibrahim', 'David', 'Samuel', 'Daniel', 'Hassan', 'Emmanuel',
  'James', 'Paul', 'Juma', 'Patrick', 'Isaac', 'Robert', 'Charles', 'Musa', 'Francis', 'George', 'Abdi',
  'Michael', 'Simon', 'Kennedy', 'Dawit', 'Yohannes', 'Chikondi', 'Tendai',
]; // prettier-ignore

export const LAST_NAMES = [
  'Okello', 'Achieng', 'Mwangi', 'Otieno', 'Nakato', 'Mutua', 'Banda', 'Phiri', 'Tembo', 'Kiprop',
  'Wanjiru', 'Odhiambo', 'Namubiru', 'Ssemakula', 'Abebe', 'Tesfaye', 'Haile', 'Mohamed', 'Ali', 'Kamau',
  'Njoroge', 'Chebet', 'Onyango', 'Nkosi', 'Chirwa', 'Mwale', 'Lungu', 'Opio', 'Akello', 'Mushi',
  'Massawe', 'Nyirenda', 'Gebre', 'Wekesa', 'Auma', 'Ochieng',
]; // prettier-ignore

export const VILLAGES = [
  'Kanyo', 'Bugiri', 'Lakwo', 'Amuru', 'Pabbo', 'Ongako', 'Koro', 'Awach', 'Patiko', 'Unyama', 'Lalogi',
  'Odek', 'Paicho', 'Bobi', 'Palaro', 'Bungatira', 'Layibi', 'Laroo', 'Pece', 'Bardege', 'Kitgum Matidi',
  'Namasale', 'Bukedea', 'Chikwawa', 'Mitundu',
]; // prettier-ignore

export interface District {
  name: string;
  country: string;
  lat: number;
  lng: number;
}

export const DISTRICTS: District[] = [
  { name: 'Gulu', country: 'Uganda', lat: 2.78, lng: 32.3 },
  { name: 'Lira', country: 'Uganda', lat: 2.25, lng: 32.9 },
  { name: 'Arua', country: 'Uganda', lat: 3.02, lng: 30.91 },
  { name: 'Mbale', country: 'Uganda', lat: 1.08, lng: 34.18 },
  { name: 'Kasese', country: 'Uganda', lat: 0.18, lng: 30.08 },
  { name: 'Turkana', country: 'Kenya', lat: 3.12, lng: 35.6 },
  { name: 'Kakamega', country: 'Kenya', lat: 0.28, lng: 34.75 },
  { name: 'Garissa', country: 'Kenya', lat: -0.45, lng: 39.65 },
  { name: 'Kisumu', country: 'Kenya', lat: -0.1, lng: 34.76 },
  { name: 'Kilifi', country: 'Kenya', lat: -3.63, lng: 39.85 },
  { name: 'Jimma', country: 'Ethiopia', lat: 7.67, lng: 36.83 },
  { name: 'Dessie', country: 'Ethiopia', lat: 11.13, lng: 39.63 },
  { name: 'Gambela', country: 'Ethiopia', lat: 8.25, lng: 34.59 },
  { name: 'Zomba', country: 'Malawi', lat: -15.39, lng: 35.32 },
  { name: 'Mzimba', country: 'Malawi', lat: -11.9, lng: 33.6 },
  { name: 'Dedza', country: 'Malawi', lat: -14.38, lng: 34.33 },
  { name: 'Nampula', country: 'Mozambique', lat: -15.12, lng: 39.27 },
  { name: 'Pemba', country: 'Mozambique', lat: -12.97, lng: 40.52 },
  { name: 'Kigoma', country: 'Tanzania', lat: -4.88, lng: 29.63 },
  { name: 'Dodoma', country: 'Tanzania', lat: -6.16, lng: 35.75 },
];

export const REGIONS = [
  'Northern Uganda', 'Western Kenya', 'the Horn of Africa', 'Southern Malawi', 'Northern Mozambique',
]; // prettier-ignore

/** A programme theme and the words its projects, indicators and activities use. */
export interface Theme {
  name: string;
  short: string;
  groups: string[];
  topics: string[];
  services: string[];
  items: string[];
}

export const THEMES: Theme[] = [
  {
    name: 'Maternal and Child Health',
    short: 'MCH',
    groups: ['pregnant women', 'caregivers', 'community health workers'],
    topics: ['antenatal care', 'safe delivery', 'newborn care'],
    services: ['antenatal visits', 'immunisation'],
    items: ['delivery kits', 'mosquito nets'],
  },
  {
    name: 'Water, Sanitation and Hygiene',
    short: 'WASH',
    groups: ['households', 'schoolchildren', 'water committee members'],
    topics: ['handwashing', 'safe water storage', 'latrine maintenance'],
    services: ['safe drinking water', 'sanitation facilities'],
    items: ['hygiene kits', 'water filters'],
  },
  {
    name: 'Food Security and Livelihoods',
    short: 'FSL',
    groups: ['smallholder farmers', 'women farmers', 'youth'],
    topics: ['climate-smart agriculture', 'post-harvest handling', 'savings groups'],
    services: ['extension services', 'village savings and loans'],
    items: ['drought-tolerant seeds', 'farm tools'],
  },
  {
    name: 'Education in Emergencies',
    short: 'EDU',
    groups: ['teachers', 'out-of-school children', 'parents'],
    topics: ['literacy', 'psychosocial support', 'classroom management'],
    services: ['temporary learning spaces', 'catch-up classes'],
    items: ['learning kits', 'textbooks'],
  },
  {
    name: 'Child Protection',
    short: 'CP',
    groups: ['children', 'caregivers', 'social workers'],
    topics: ['positive parenting', 'case management', 'child safeguarding'],
    services: ['case management', 'child-friendly spaces'],
    items: ['dignity kits', 'recreation kits'],
  },
  {
    name: 'Gender-Based Violence Prevention',
    short: 'GBV',
    groups: ['women and girls', 'community leaders', 'men and boys'],
    topics: ['GBV referral pathways', 'women’s leadership', 'survivor support'],
    services: ['psychosocial support', 'safe spaces'],
    items: ['dignity kits', 'solar lamps'],
  },
  {
    name: 'Climate Resilience',
    short: 'CLIM',
    groups: ['farmers', 'disaster committee members', 'households'],
    topics: ['early warning', 'soil conservation', 'tree planting'],
    services: ['weather information', 'early warning alerts'],
    items: ['seedlings', 'energy-saving stoves'],
  },
  {
    name: 'Nutrition',
    short: 'NUT',
    groups: ['children under five', 'lactating mothers', 'caregivers'],
    topics: ['infant and young child feeding', 'malnutrition screening', 'kitchen gardens'],
    services: ['nutrition screening', 'supplementary feeding'],
    items: ['therapeutic food', 'micronutrient powders'],
  },
  {
    name: 'Youth Employment',
    short: 'YTH',
    groups: ['young people', 'young women', 'apprentices'],
    topics: ['vocational skills', 'entrepreneurship', 'digital skills'],
    services: ['job placement', 'business start-up grants'],
    items: ['start-up kits', 'toolkits'],
  },
  {
    name: 'Cash Assistance',
    short: 'CASH',
    groups: ['vulnerable households', 'refugees', 'host community members'],
    topics: ['financial literacy', 'mobile money', 'market access'],
    services: ['multipurpose cash', 'cash for work'],
    items: ['cash transfers', 'vouchers'],
  },
];

export const DONORS = [
  { name: 'Northern Development Fund', code: 'NDF', type: 'bilateral', country: 'Norway' },
  { name: 'European Humanitarian Facility', code: 'EHF', type: 'multilateral', country: 'Belgium' },
  { name: 'Global Health Partnership', code: 'GHP', type: 'multilateral', country: 'Switzerland' },
  { name: 'Brightwater Foundation', code: 'BWF', type: 'private', country: 'United States' },
  { name: 'Commonwealth Aid Office', code: 'CAO', type: 'bilateral', country: 'United Kingdom' },
  { name: 'Rainier Family Trust', code: 'RFT', type: 'private', country: 'Canada' },
  { name: 'Nordic Children’s Fund', code: 'NCF', type: 'ngo', country: 'Sweden' },
  { name: 'Pan-African Resilience Facility', code: 'PARF', type: 'multilateral', country: 'Kenya' },
  { name: 'Ministry of Local Government', code: 'MOLG', type: 'government', country: 'Uganda' },
  { name: 'Harvest Hope Foundation', code: 'HHF', type: 'private', country: 'Netherlands' },
  { name: 'Alpine Cooperation Agency', code: 'ACA', type: 'bilateral', country: 'Switzerland' },
  { name: 'Lakeside Community Trust', code: 'LCT', type: 'ngo', country: 'Ireland' },
  { name: 'Pacific Rim Giving', code: 'PRG', type: 'private', country: 'Japan' },
  { name: 'World Food Facility', code: 'WFF', type: 'multilateral', country: 'Italy' },
  { name: 'German Partnership Agency', code: 'GPA', type: 'bilateral', country: 'Germany' },
  { name: 'Clearwater Initiative', code: 'CWI', type: 'ngo', country: 'Denmark' },
  { name: 'Sahel and Horn Response Fund', code: 'SHRF', type: 'multilateral', country: 'Ethiopia' },
  { name: 'Maple Leaf Development', code: 'MLD', type: 'bilateral', country: 'Canada' },
  { name: 'Open Futures Foundation', code: 'OFF', type: 'private', country: 'United States' },
  { name: 'District Social Fund', code: 'DSF', type: 'government', country: 'Malawi' },
] as const;

export const CURRENCIES: readonly (readonly [string, number])[] = [
  ['USD', 55],
  ['EUR', 25],
  ['GBP', 10],
  ['KES', 10],
];

export const BUDGET_CATEGORIES = [
  'Personnel', 'Travel', 'Equipment', 'Supplies', 'Training', 'Monitoring and evaluation',
  'Sub-grants', 'Overheads',
]; // prettier-ignore

/** Anyone's first and last name. */
export const personName = (random: Random) =>
  `${random.pick(random.chance(0.5) ? FEMALE_NAMES : MALE_NAMES)} ${random.pick(LAST_NAMES)}`;
