export * from './form';
export * from './field-row';
export * from './fields';
export * from './save-feedback';
export * from './form-actions';
