import type { SqlDatabase } from './sql/SqlDatabase.js';
import { ProductCreateRepository } from './ProductCreateRepository.js';
import { ProductFingerprintRepository } from './ProductFingerprintRepository.js';

/** The products pipeline's part of the store (tables of PRODUCTS_MIGRATION). */
export interface ProductRepositories {
  creates: ProductCreateRepository;
  fingerprints: ProductFingerprintRepository;
}

export function createProductRepositories(db: SqlDatabase): ProductRepositories {
  return { creates: new ProductCreateRepository(db), fingerprints: new ProductFingerprintRepository(db) };
}
