"""The dbt project: running dbt in process, what cdclake generates for it, which nodes a build can leave out."""
