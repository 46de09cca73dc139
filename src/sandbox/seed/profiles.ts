/** What the demo seed generates for one company. Secondary's data is smaller and different. */
export interface SeedProfile {
  skuPrefix: string;
  products: number;
  /** every Nth product is `variable` */
  variableEvery: number;
  customers: number;
  orders: number;
  returns: number;
  offers: number;
  brands: string[];
  /** root name -> children; a child written "Name>Grand1;Grand2" gets a third level */
  categories: Record<string, string[]>;
  tags: [string, string][];
  nouns: string[];
  firstNames: string[];
  lastNames: string[];
  emailDomain: string;
  /** couriers connected with credentials; AWBs of others are local TEST ones */
  connectedCouriers: string[];
  createdFrom: string;
}

export const PRIMARY_PROFILE: SeedProfile = {
  skuPrefix: 'DEMO',
  products: 240,
  variableEvery: 6,
  customers: 60,
  orders: 120,
  returns: 12,
  offers: 80,
  brands: [
    'Nova',
    'Arctic',
    'Carpathia',
    'Lumen',
    'Vortex',
    'Dacia Home',
    'Orion',
    'Zephyr',
    'Tundra',
    'Helix',
    'Bravo',
    'Kappa',
  ],
  categories: {
    Electronice: ['Telefoane>Smartphone;Accesorii telefoane', 'Laptopuri', 'Audio>Căști;Boxe'],
    'Casă și grădină': ['Mobilier', 'Bucătărie>Ustensile;Veselă', 'Grădină'],
    Fashion: ['Bărbați', 'Femei', 'Copii'],
    Sport: ['Fitness', 'Ciclism'],
    Cărți: [],
  },
  tags: [
    ['Nou', '#2ecc71'],
    ['Reducere', 'red'],
    ['Best seller', '#f1c40f'],
    ['Stoc limitat', '#e67e22'],
    ['Eco', 'green'],
    ['Premium', '#8e44ad'],
    ['Black Friday', 'black'],
    ['Cadou', '#e84393'],
    ['Import', '#34495e'],
    ['Lichidare', '#c0392b'],
    ['Livrare rapidă', 'blue'],
    ['Exclusiv online', '#16a085'],
    ['Resigilat', 'gray'],
    ['Pachet', '#d35400'],
    ['Recomandat', '#27ae60'],
  ],
  nouns: [
    'Căști wireless',
    'Telefon',
    'Laptop',
    'Boxă portabilă',
    'Scaun',
    'Masă',
    'Tigaie',
    'Set farfurii',
    'Tricou',
    'Geacă',
    'Bicicletă',
    'Gantere',
    'Carte',
    'Lampă',
    'Rucsac',
    'Ceas',
  ],
  firstNames: [
    'Andrei',
    'Maria',
    'Ioana',
    'Alexandru',
    'Elena',
    'Mihai',
    'Ana',
    'Cristian',
    'Gabriela',
    'Ștefan',
    'Raluca',
    'Vlad',
  ],
  lastNames: [
    'Popescu',
    'Ionescu',
    'Popa',
    'Dumitru',
    'Stan',
    'Stoica',
    'Gheorghe',
    'Matei',
    'Ciobanu',
    'Rusu',
  ],
  emailDomain: 'example.ro',
  connectedCouriers: ['fan', 'sameday', 'cargus'],
  createdFrom: '2025-09-01T08:00:00Z',
};

export const SECONDARY_PROFILE: SeedProfile = {
  skuPrefix: 'SEC',
  products: 40,
  variableEvery: 8,
  customers: 15,
  orders: 20,
  returns: 2,
  offers: 10,
  brands: ['Floris', 'Verde', 'Petala', 'Botanica'],
  categories: { Plante: ['Plante de interior', 'Plante de exterior'], Ghivece: [], Accesorii: ['Unelte'] },
  tags: [
    ['Sezon', '#ff9800'],
    ['Promo', 'purple'],
    ['Nou', '#00bcd4'],
  ],
  nouns: ['Ficus', 'Orhidee', 'Ghiveci ceramic', 'Stropitoare', 'Pământ flori', 'Foarfecă grădină'],
  firstNames: ['Bogdan', 'Irina', 'Sorin', 'Diana', 'Paul'],
  lastNames: ['Muresan', 'Pop', 'Lazar', 'Barbu'],
  emailDomain: 'example.com',
  connectedCouriers: [],
  createdFrom: '2025-10-15T10:00:00Z',
};
