UPDATE api_keys SET scopes = replace(scopes, ' returns:read returns:write', '');
