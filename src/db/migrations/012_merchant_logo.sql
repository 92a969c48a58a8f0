-- The merchant's logo for the hosted checkout (an HTTPS URL), the default of a deposit's `logo`.
ALTER TABLE merchants ADD COLUMN logo_url text;
