# Generated from schemas/note.schema.json (sha256 a407bfae1bb5996cc6ecc6aa6c5f27cca5ed548181065ae6899b29358a864005) by fastjsonschema: do not edit.
# Regenerate: python -c "from jacked_vault.document.validate import write_fast_check; write_fast_check()"
# (tests/e2e/test_document.py fails while the digest differs from the schema's.)


class JsonSchemaValueException(ValueError):
    """The schema refuses the value (the reference validator says why)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
VERSION = "2.22.3"
import re


REGEX_PATTERNS = {
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$': re.compile('^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z\\Z'),
    '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$': re.compile('^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}\\Z'),
    '^[a-z0-9][a-z0-9._-]{0,63}$': re.compile('^[a-z0-9][a-z0-9._-]{0,63}\\Z'),
    '^mem_[a-z0-9][a-z0-9_-]{2,127}$': re.compile('^mem_[a-z0-9][a-z0-9_-]{2,127}\\Z')
}

NoneType = type(None)

def validate(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked.memory.v1 note frontmatter', 'description': "Frontmatter of a jacked-vault note. The writer emits the keys in the order of 'properties', one 'key: <JSON value>' line each; 'status_reason' only when set. Patterns use ECMA-262 semantics ('$' is the end of the string).", 'type': 'object', 'additionalProperties': False, 'required': ['schema', 'id', 'title', 'kind', 'scope', 'group', 'repos', 'trust', 'status', 'origin', 'source_harness', 'target_harnesses', 'tags', 'links', 'supersedes', 'valid_from', 'valid_until', 'created_at', 'updated_at'], 'properties': {'schema': {'const': 'jacked.memory.v1'}, 'id': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, 'title': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'kind': {'enum': ['decision', 'convention', 'vision', 'reference', 'progress', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook', 'context']}, 'scope': {'enum': ['group', 'user', 'project']}, 'group': {'type': ['string', 'null'], 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'repos': {'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, 'trust': {'enum': ['unreviewed', 'reviewed']}, 'status': {'enum': ['candidate', 'active', 'rejected', 'superseded']}, 'status_reason': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, 'origin': {'enum': ['cli', 'mcp', 'session-end', 'pre-compact', 'post-merge', 'migration', 'milestone', 'librarian']}, 'source_harness': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'target_harnesses': {'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'tags': {'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'links': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'supersedes': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'valid_from': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'valid_until': {'type': ['string', 'null'], 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'created_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'updated_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}}, 'definitions': {'slug': {'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}, 'memory_id': {'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}, 'repo': {'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}, 'timestamp': {'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['schema', 'id', 'title', 'kind', 'scope', 'group', 'repos', 'trust', 'status', 'origin', 'source_harness', 'target_harnesses', 'tags', 'links', 'supersedes', 'valid_from', 'valid_until', 'created_at', 'updated_at']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked.memory.v1 note frontmatter', 'description': "Frontmatter of a jacked-vault note. The writer emits the keys in the order of 'properties', one 'key: <JSON value>' line each; 'status_reason' only when set. Patterns use ECMA-262 semantics ('$' is the end of the string).", 'type': 'object', 'additionalProperties': False, 'required': ['schema', 'id', 'title', 'kind', 'scope', 'group', 'repos', 'trust', 'status', 'origin', 'source_harness', 'target_harnesses', 'tags', 'links', 'supersedes', 'valid_from', 'valid_until', 'created_at', 'updated_at'], 'properties': {'schema': {'const': 'jacked.memory.v1'}, 'id': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, 'title': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'kind': {'enum': ['decision', 'convention', 'vision', 'reference', 'progress', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook', 'context']}, 'scope': {'enum': ['group', 'user', 'project']}, 'group': {'type': ['string', 'null'], 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'repos': {'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, 'trust': {'enum': ['unreviewed', 'reviewed']}, 'status': {'enum': ['candidate', 'active', 'rejected', 'superseded']}, 'status_reason': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, 'origin': {'enum': ['cli', 'mcp', 'session-end', 'pre-compact', 'post-merge', 'migration', 'milestone', 'librarian']}, 'source_harness': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'target_harnesses': {'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'tags': {'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'links': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'supersedes': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'valid_from': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'valid_until': {'type': ['string', 'null'], 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'created_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'updated_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}}, 'definitions': {'slug': {'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}, 'memory_id': {'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}, 'repo': {'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}, 'timestamp': {'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}}}, rule='required')
        data_keys = set(data.keys())
        if "schema" in data_keys:
            data_keys.remove("schema")
            data__schema = data["schema"]
            if not (isinstance(data__schema, str) and data__schema == 'jacked.memory.v1'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".schema must be same as const definition: jacked.memory.v1", value=data__schema, name="" + (name_prefix or "data") + ".schema", definition={'const': 'jacked.memory.v1'}, rule='const')
        if "id" in data_keys:
            data_keys.remove("id")
            data__id = data["id"]
            if not isinstance(data__id, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must be string", value=data__id, name="" + (name_prefix or "data") + ".id", definition={'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, rule='type')
            validate___definitions_memory_id(data__id, custom_formats, (name_prefix or "data") + ".id")
        if "title" in data_keys:
            data_keys.remove("title")
            data__title = data["title"]
            if not isinstance(data__title, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be string", value=data__title, name="" + (name_prefix or "data") + ".title", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='type')
            if isinstance(data__title, str):
                data__title_len = len(data__title)
                if data__title_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be longer than or equal to 1 characters", value=data__title, name="" + (name_prefix or "data") + ".title", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='minLength')
                if data__title_len > 200:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be shorter than or equal to 200 characters", value=data__title, name="" + (name_prefix or "data") + ".title", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='maxLength')
        if "kind" in data_keys:
            data_keys.remove("kind")
            data__kind = data["kind"]
            if not (isinstance(data__kind, str) and data__kind == 'decision' or isinstance(data__kind, str) and data__kind == 'convention' or isinstance(data__kind, str) and data__kind == 'vision' or isinstance(data__kind, str) and data__kind == 'reference' or isinstance(data__kind, str) and data__kind == 'progress' or isinstance(data__kind, str) and data__kind == 'fact' or isinstance(data__kind, str) and data__kind == 'handoff' or isinstance(data__kind, str) and data__kind == 'lesson' or isinstance(data__kind, str) and data__kind == 'note' or isinstance(data__kind, str) and data__kind == 'preference' or isinstance(data__kind, str) and data__kind == 'runbook' or isinstance(data__kind, str) and data__kind == 'context'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be one of ['decision', 'convention', 'vision', 'reference', 'progress', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook', 'context']", value=data__kind, name="" + (name_prefix or "data") + ".kind", definition={'enum': ['decision', 'convention', 'vision', 'reference', 'progress', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook', 'context']}, rule='enum')
        if "scope" in data_keys:
            data_keys.remove("scope")
            data__scope = data["scope"]
            if not (isinstance(data__scope, str) and data__scope == 'group' or isinstance(data__scope, str) and data__scope == 'user' or isinstance(data__scope, str) and data__scope == 'project'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".scope must be one of ['group', 'user', 'project']", value=data__scope, name="" + (name_prefix or "data") + ".scope", definition={'enum': ['group', 'user', 'project']}, rule='enum')
        if "group" in data_keys:
            data_keys.remove("group")
            data__group = data["group"]
            if not isinstance(data__group, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".group must be string or null", value=data__group, name="" + (name_prefix or "data") + ".group", definition={'type': ['string', 'null'], 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, rule='type')
            validate___definitions_slug(data__group, custom_formats, (name_prefix or "data") + ".group")
        if "repos" in data_keys:
            data_keys.remove("repos")
            data__repos = data["repos"]
            if not isinstance(data__repos, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repos must be array", value=data__repos, name="" + (name_prefix or "data") + ".repos", definition={'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, rule='type')
            data__repos_is_list = isinstance(data__repos, (list, tuple))
            if data__repos_is_list:
                data__repos_len = len(data__repos)
                if data__repos_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repos must contain less than or equal to 64 items", value=data__repos, name="" + (name_prefix or "data") + ".repos", definition={'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, rule='maxItems')
                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                if data__repos_len > len(set(fn(data__repos_x) for data__repos_x in data__repos)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".repos must contain unique items", value=data__repos, name="" + (name_prefix or "data") + ".repos", definition={'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, rule='uniqueItems')
                for data__repos_x, data__repos_item in enumerate(data__repos):
                    if not isinstance(data__repos_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".repos[{data__repos_x}]" + " must be string", value=data__repos_item, name="" + (name_prefix or "data") + f".repos[{data__repos_x}]" + "", definition={'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}, rule='type')
                    validate___definitions_repo(data__repos_item, custom_formats, (name_prefix or "data") + f".repos[{data__repos_x}]")
        if "trust" in data_keys:
            data_keys.remove("trust")
            data__trust = data["trust"]
            if not (isinstance(data__trust, str) and data__trust == 'unreviewed' or isinstance(data__trust, str) and data__trust == 'reviewed'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".trust must be one of ['unreviewed', 'reviewed']", value=data__trust, name="" + (name_prefix or "data") + ".trust", definition={'enum': ['unreviewed', 'reviewed']}, rule='enum')
        if "status" in data_keys:
            data_keys.remove("status")
            data__status = data["status"]
            if not (isinstance(data__status, str) and data__status == 'candidate' or isinstance(data__status, str) and data__status == 'active' or isinstance(data__status, str) and data__status == 'rejected' or isinstance(data__status, str) and data__status == 'superseded'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".status must be one of ['candidate', 'active', 'rejected', 'superseded']", value=data__status, name="" + (name_prefix or "data") + ".status", definition={'enum': ['candidate', 'active', 'rejected', 'superseded']}, rule='enum')
        if "status_reason" in data_keys:
            data_keys.remove("status_reason")
            data__statusreason = data["status_reason"]
            if not isinstance(data__statusreason, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".status_reason must be string or null", value=data__statusreason, name="" + (name_prefix or "data") + ".status_reason", definition={'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, rule='type')
            if isinstance(data__statusreason, str):
                data__statusreason_len = len(data__statusreason)
                if data__statusreason_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".status_reason must be longer than or equal to 1 characters", value=data__statusreason, name="" + (name_prefix or "data") + ".status_reason", definition={'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, rule='minLength')
                if data__statusreason_len > 500:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".status_reason must be shorter than or equal to 500 characters", value=data__statusreason, name="" + (name_prefix or "data") + ".status_reason", definition={'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, rule='maxLength')
        if "origin" in data_keys:
            data_keys.remove("origin")
            data__origin = data["origin"]
            if not (isinstance(data__origin, str) and data__origin == 'cli' or isinstance(data__origin, str) and data__origin == 'mcp' or isinstance(data__origin, str) and data__origin == 'session-end' or isinstance(data__origin, str) and data__origin == 'pre-compact' or isinstance(data__origin, str) and data__origin == 'post-merge' or isinstance(data__origin, str) and data__origin == 'migration' or isinstance(data__origin, str) and data__origin == 'milestone' or isinstance(data__origin, str) and data__origin == 'librarian'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".origin must be one of ['cli', 'mcp', 'session-end', 'pre-compact', 'post-merge', 'migration', 'milestone', 'librarian']", value=data__origin, name="" + (name_prefix or "data") + ".origin", definition={'enum': ['cli', 'mcp', 'session-end', 'pre-compact', 'post-merge', 'migration', 'milestone', 'librarian']}, rule='enum')
        if "source_harness" in data_keys:
            data_keys.remove("source_harness")
            data__sourceharness = data["source_harness"]
            if not isinstance(data__sourceharness, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source_harness must be string", value=data__sourceharness, name="" + (name_prefix or "data") + ".source_harness", definition={'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, rule='type')
            validate___definitions_slug(data__sourceharness, custom_formats, (name_prefix or "data") + ".source_harness")
        if "target_harnesses" in data_keys:
            data_keys.remove("target_harnesses")
            data__targetharnesses = data["target_harnesses"]
            if not isinstance(data__targetharnesses, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".target_harnesses must be array", value=data__targetharnesses, name="" + (name_prefix or "data") + ".target_harnesses", definition={'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='type')
            data__targetharnesses_is_list = isinstance(data__targetharnesses, (list, tuple))
            if data__targetharnesses_is_list:
                data__targetharnesses_len = len(data__targetharnesses)
                if data__targetharnesses_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".target_harnesses must contain at least 1 items", value=data__targetharnesses, name="" + (name_prefix or "data") + ".target_harnesses", definition={'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='minItems')
                if data__targetharnesses_len > 32:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".target_harnesses must contain less than or equal to 32 items", value=data__targetharnesses, name="" + (name_prefix or "data") + ".target_harnesses", definition={'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='maxItems')
                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                if data__targetharnesses_len > len(set(fn(data__targetharnesses_x) for data__targetharnesses_x in data__targetharnesses)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".target_harnesses must contain unique items", value=data__targetharnesses, name="" + (name_prefix or "data") + ".target_harnesses", definition={'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='uniqueItems')
                for data__targetharnesses_x, data__targetharnesses_item in enumerate(data__targetharnesses):
                    if not isinstance(data__targetharnesses_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".target_harnesses[{data__targetharnesses_x}]" + " must be string", value=data__targetharnesses_item, name="" + (name_prefix or "data") + f".target_harnesses[{data__targetharnesses_x}]" + "", definition={'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, rule='type')
                    validate___definitions_slug(data__targetharnesses_item, custom_formats, (name_prefix or "data") + f".target_harnesses[{data__targetharnesses_x}]")
        if "tags" in data_keys:
            data_keys.remove("tags")
            data__tags = data["tags"]
            if not isinstance(data__tags, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".tags must be array", value=data__tags, name="" + (name_prefix or "data") + ".tags", definition={'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='type')
            data__tags_is_list = isinstance(data__tags, (list, tuple))
            if data__tags_is_list:
                data__tags_len = len(data__tags)
                if data__tags_len > 32:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".tags must contain less than or equal to 32 items", value=data__tags, name="" + (name_prefix or "data") + ".tags", definition={'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='maxItems')
                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                if data__tags_len > len(set(fn(data__tags_x) for data__tags_x in data__tags)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".tags must contain unique items", value=data__tags, name="" + (name_prefix or "data") + ".tags", definition={'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, rule='uniqueItems')
                for data__tags_x, data__tags_item in enumerate(data__tags):
                    if not isinstance(data__tags_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".tags[{data__tags_x}]" + " must be string", value=data__tags_item, name="" + (name_prefix or "data") + f".tags[{data__tags_x}]" + "", definition={'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, rule='type')
                    validate___definitions_slug(data__tags_item, custom_formats, (name_prefix or "data") + f".tags[{data__tags_x}]")
        if "links" in data_keys:
            data_keys.remove("links")
            data__links = data["links"]
            if not isinstance(data__links, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".links must be array", value=data__links, name="" + (name_prefix or "data") + ".links", definition={'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, rule='type')
            data__links_is_list = isinstance(data__links, (list, tuple))
            if data__links_is_list:
                data__links_len = len(data__links)
                if data__links_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".links must contain less than or equal to 64 items", value=data__links, name="" + (name_prefix or "data") + ".links", definition={'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, rule='maxItems')
                for data__links_x, data__links_item in enumerate(data__links):
                    if not isinstance(data__links_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".links[{data__links_x}]" + " must be string", value=data__links_item, name="" + (name_prefix or "data") + f".links[{data__links_x}]" + "", definition={'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, rule='type')
                    validate___definitions_memory_id(data__links_item, custom_formats, (name_prefix or "data") + f".links[{data__links_x}]")
        if "supersedes" in data_keys:
            data_keys.remove("supersedes")
            data__supersedes = data["supersedes"]
            if not isinstance(data__supersedes, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".supersedes must be array", value=data__supersedes, name="" + (name_prefix or "data") + ".supersedes", definition={'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, rule='type')
            data__supersedes_is_list = isinstance(data__supersedes, (list, tuple))
            if data__supersedes_is_list:
                data__supersedes_len = len(data__supersedes)
                if data__supersedes_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".supersedes must contain less than or equal to 64 items", value=data__supersedes, name="" + (name_prefix or "data") + ".supersedes", definition={'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, rule='maxItems')
                for data__supersedes_x, data__supersedes_item in enumerate(data__supersedes):
                    if not isinstance(data__supersedes_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".supersedes[{data__supersedes_x}]" + " must be string", value=data__supersedes_item, name="" + (name_prefix or "data") + f".supersedes[{data__supersedes_x}]" + "", definition={'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, rule='type')
                    validate___definitions_memory_id(data__supersedes_item, custom_formats, (name_prefix or "data") + f".supersedes[{data__supersedes_x}]")
        if "valid_from" in data_keys:
            data_keys.remove("valid_from")
            data__validfrom = data["valid_from"]
            if not isinstance(data__validfrom, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".valid_from must be string", value=data__validfrom, name="" + (name_prefix or "data") + ".valid_from", definition={'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, rule='type')
            validate___definitions_timestamp(data__validfrom, custom_formats, (name_prefix or "data") + ".valid_from")
        if "valid_until" in data_keys:
            data_keys.remove("valid_until")
            data__validuntil = data["valid_until"]
            if not isinstance(data__validuntil, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".valid_until must be string or null", value=data__validuntil, name="" + (name_prefix or "data") + ".valid_until", definition={'type': ['string', 'null'], 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, rule='type')
            validate___definitions_timestamp(data__validuntil, custom_formats, (name_prefix or "data") + ".valid_until")
        if "created_at" in data_keys:
            data_keys.remove("created_at")
            data__createdat = data["created_at"]
            if not isinstance(data__createdat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".created_at must be string", value=data__createdat, name="" + (name_prefix or "data") + ".created_at", definition={'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, rule='type')
            validate___definitions_timestamp(data__createdat, custom_formats, (name_prefix or "data") + ".created_at")
        if "updated_at" in data_keys:
            data_keys.remove("updated_at")
            data__updatedat = data["updated_at"]
            if not isinstance(data__updatedat, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".updated_at must be string", value=data__updatedat, name="" + (name_prefix or "data") + ".updated_at", definition={'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, rule='type')
            validate___definitions_timestamp(data__updatedat, custom_formats, (name_prefix or "data") + ".updated_at")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked.memory.v1 note frontmatter', 'description': "Frontmatter of a jacked-vault note. The writer emits the keys in the order of 'properties', one 'key: <JSON value>' line each; 'status_reason' only when set. Patterns use ECMA-262 semantics ('$' is the end of the string).", 'type': 'object', 'additionalProperties': False, 'required': ['schema', 'id', 'title', 'kind', 'scope', 'group', 'repos', 'trust', 'status', 'origin', 'source_harness', 'target_harnesses', 'tags', 'links', 'supersedes', 'valid_from', 'valid_until', 'created_at', 'updated_at'], 'properties': {'schema': {'const': 'jacked.memory.v1'}, 'id': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}, 'title': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'kind': {'enum': ['decision', 'convention', 'vision', 'reference', 'progress', 'fact', 'handoff', 'lesson', 'note', 'preference', 'runbook', 'context']}, 'scope': {'enum': ['group', 'user', 'project']}, 'group': {'type': ['string', 'null'], 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'repos': {'type': 'array', 'maxItems': 64, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}]}}, 'trust': {'enum': ['unreviewed', 'reviewed']}, 'status': {'enum': ['candidate', 'active', 'rejected', 'superseded']}, 'status_reason': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 500}, 'origin': {'enum': ['cli', 'mcp', 'session-end', 'pre-compact', 'post-merge', 'migration', 'milestone', 'librarian']}, 'source_harness': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}, 'target_harnesses': {'type': 'array', 'minItems': 1, 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'tags': {'type': 'array', 'maxItems': 32, 'uniqueItems': True, 'items': {'type': 'string', 'allOf': [{'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}]}}, 'links': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'supersedes': {'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'allOf': [{'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}]}}, 'valid_from': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'valid_until': {'type': ['string', 'null'], 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'created_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}, 'updated_at': {'type': 'string', 'allOf': [{'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}]}}, 'definitions': {'slug': {'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}, 'memory_id': {'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}, 'repo': {'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}, 'timestamp': {'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}}}, rule='additionalProperties')
    return data

def validate___definitions_timestamp(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        if not REGEX_PATTERNS['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$", value=data, name="" + (name_prefix or "data") + "", definition={'title': 'timestamp (YYYY-MM-DDTHH:MM:SS.mmmZ)', 'pattern': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'}, rule='pattern')
    return data

def validate___definitions_repo(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        data_len = len(data)
        if data_len > 255:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be shorter than or equal to 255 characters", value=data, name="" + (name_prefix or "data") + "", definition={'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}, rule='maxLength')
        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$", value=data, name="" + (name_prefix or "data") + "", definition={'title': 'repo identity', 'maxLength': 255, 'pattern': '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*){0,7}$'}, rule='pattern')
    return data

def validate___definitions_slug(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9._-]{0,63}$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^[a-z0-9][a-z0-9._-]{0,63}$", value=data, name="" + (name_prefix or "data") + "", definition={'title': 'slug', 'pattern': '^[a-z0-9][a-z0-9._-]{0,63}$'}, rule='pattern')
    return data

def validate___definitions_memory_id(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        if not REGEX_PATTERNS['^mem_[a-z0-9][a-z0-9_-]{2,127}$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^mem_[a-z0-9][a-z0-9_-]{2,127}$", value=data, name="" + (name_prefix or "data") + "", definition={'title': 'memory id', 'pattern': '^mem_[a-z0-9][a-z0-9_-]{2,127}$'}, rule='pattern')
    return data