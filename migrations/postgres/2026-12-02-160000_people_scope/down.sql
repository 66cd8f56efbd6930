UPDATE api_keys SET scopes = replace(scopes, ' people:read', '');
