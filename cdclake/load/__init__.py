"""Reading what users give: schemas, CQL writes, table exports, a cluster's logs, into ``cdc_input``."""
