#!/bin/sh
# First start of the postgres container: one database and one owner each for the agent service and
# Keycloak, so that neither can touch the other's tables.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v agent_password="$AGENT_DB_PASSWORD" -v keycloak_password="$KEYCLOAK_DB_PASSWORD" <<'SQL'
CREATE USER agent WITH PASSWORD :'agent_password';
CREATE DATABASE agent OWNER agent;
CREATE USER keycloak WITH PASSWORD :'keycloak_password';
CREATE DATABASE keycloak OWNER keycloak;
SQL
