-- NewInvoice's x_currency is outside the control the spec defines: a merchant may pin the
-- currencies its NewInvoice requests may be priced in (NULL: any currency caja has a rate for).
ALTER TABLE merchants ADD COLUMN newinvoice_currencies text[];
