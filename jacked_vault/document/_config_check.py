# Generated from schemas/config.schema.json (sha256 e55484c397fe5e26c1ba4ebe69cc35d98ad6e3bea974ecb1d935f77108acaf8f) by fastjsonschema: do not edit.
# Regenerate: python -c "from jacked_vault.document.validate import write_fast_check; write_fast_check()"
# (tests/e2e/test_document.py fails while the digest differs from the schema's.)


class JsonSchemaValueException(ValueError):
    """The schema refuses the value (the reference validator says why)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
VERSION = "2.22.3"
from decimal import Decimal
import re


REGEX_PATTERNS = {
    '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$': re.compile('^([a-z0-9][a-z0-9._-]{0,63}|\\*)\\Z')
}

NoneType = type(None)

def validate(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked-vault machine configuration (~/.config/jacked/config.json)', 'description': 'Machine-local settings that sync can never write. The only place a setting that runs a program (distill.command) is honoured.', 'type': 'object', 'additionalProperties': False, 'required': ['version'], 'properties': {'version': {'const': 1}, 'roots': {'description': 'The folders where this machine keeps its clones (scanned by init, enable, group suggest, hooks install --git-all); default: the usual ones (~/code, ~/src, ~/Github, ~/projects, ...).', 'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 1024}}, 'settings': {'type': 'object', 'additionalProperties': False, 'properties': {'author': {'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, 'lock_timeout_s': {'type': 'number', 'minimum': 0, 'maximum': 600}, 'sync': {'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, 'librarian': {'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, 'writes': {'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, 'review': {'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, 'distill': {'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}}}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['version']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked-vault machine configuration (~/.config/jacked/config.json)', 'description': 'Machine-local settings that sync can never write. The only place a setting that runs a program (distill.command) is honoured.', 'type': 'object', 'additionalProperties': False, 'required': ['version'], 'properties': {'version': {'const': 1}, 'roots': {'description': 'The folders where this machine keeps its clones (scanned by init, enable, group suggest, hooks install --git-all); default: the usual ones (~/code, ~/src, ~/Github, ~/projects, ...).', 'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 1024}}, 'settings': {'type': 'object', 'additionalProperties': False, 'properties': {'author': {'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, 'lock_timeout_s': {'type': 'number', 'minimum': 0, 'maximum': 600}, 'sync': {'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, 'librarian': {'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, 'writes': {'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, 'review': {'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, 'distill': {'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}}}}}, rule='required')
        data_keys = set(data.keys())
        if "version" in data_keys:
            data_keys.remove("version")
            data__version = data["version"]
            if not (isinstance(data__version, (int, float)) and not isinstance(data__version, bool) and data__version == 1):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".version must be same as const definition: 1", value=data__version, name="" + (name_prefix or "data") + ".version", definition={'const': 1}, rule='const')
        if "roots" in data_keys:
            data_keys.remove("roots")
            data__roots = data["roots"]
            if not isinstance(data__roots, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".roots must be array", value=data__roots, name="" + (name_prefix or "data") + ".roots", definition={'description': 'The folders where this machine keeps its clones (scanned by init, enable, group suggest, hooks install --git-all); default: the usual ones (~/code, ~/src, ~/Github, ~/projects, ...).', 'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 1024}}, rule='type')
            data__roots_is_list = isinstance(data__roots, (list, tuple))
            if data__roots_is_list:
                data__roots_len = len(data__roots)
                if data__roots_len > 64:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".roots must contain less than or equal to 64 items", value=data__roots, name="" + (name_prefix or "data") + ".roots", definition={'description': 'The folders where this machine keeps its clones (scanned by init, enable, group suggest, hooks install --git-all); default: the usual ones (~/code, ~/src, ~/Github, ~/projects, ...).', 'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 1024}}, rule='maxItems')
                for data__roots_x, data__roots_item in enumerate(data__roots):
                    if not isinstance(data__roots_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".roots[{data__roots_x}]" + " must be string", value=data__roots_item, name="" + (name_prefix or "data") + f".roots[{data__roots_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 1024}, rule='type')
                    if isinstance(data__roots_item, str):
                        data__roots_item_len = len(data__roots_item)
                        if data__roots_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + f".roots[{data__roots_x}]" + " must be longer than or equal to 1 characters", value=data__roots_item, name="" + (name_prefix or "data") + f".roots[{data__roots_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 1024}, rule='minLength')
                        if data__roots_item_len > 1024:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + f".roots[{data__roots_x}]" + " must be shorter than or equal to 1024 characters", value=data__roots_item, name="" + (name_prefix or "data") + f".roots[{data__roots_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 1024}, rule='maxLength')
        if "settings" in data_keys:
            data_keys.remove("settings")
            data__settings = data["settings"]
            if not isinstance(data__settings, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings must be object", value=data__settings, name="" + (name_prefix or "data") + ".settings", definition={'type': 'object', 'additionalProperties': False, 'properties': {'author': {'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, 'lock_timeout_s': {'type': 'number', 'minimum': 0, 'maximum': 600}, 'sync': {'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, 'librarian': {'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, 'writes': {'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, 'review': {'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, 'distill': {'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}}}, rule='type')
            data__settings_is_dict = isinstance(data__settings, dict)
            if data__settings_is_dict:
                data__settings_keys = set(data__settings.keys())
                if "author" in data__settings_keys:
                    data__settings_keys.remove("author")
                    data__settings__author = data__settings["author"]
                    if not isinstance(data__settings__author, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author must be object", value=data__settings__author, name="" + (name_prefix or "data") + ".settings.author", definition={'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, rule='type')
                    data__settings__author_is_dict = isinstance(data__settings__author, dict)
                    if data__settings__author_is_dict:
                        data__settings__author_keys = set(data__settings__author.keys())
                        if "name" in data__settings__author_keys:
                            data__settings__author_keys.remove("name")
                            data__settings__author__name = data__settings__author["name"]
                            if not isinstance(data__settings__author__name, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.name must be string", value=data__settings__author__name, name="" + (name_prefix or "data") + ".settings.author.name", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='type')
                            if isinstance(data__settings__author__name, str):
                                data__settings__author__name_len = len(data__settings__author__name)
                                if data__settings__author__name_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.name must be longer than or equal to 1 characters", value=data__settings__author__name, name="" + (name_prefix or "data") + ".settings.author.name", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='minLength')
                                if data__settings__author__name_len > 200:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.name must be shorter than or equal to 200 characters", value=data__settings__author__name, name="" + (name_prefix or "data") + ".settings.author.name", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='maxLength')
                        if "email" in data__settings__author_keys:
                            data__settings__author_keys.remove("email")
                            data__settings__author__email = data__settings__author["email"]
                            if not isinstance(data__settings__author__email, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.email must be string", value=data__settings__author__email, name="" + (name_prefix or "data") + ".settings.author.email", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='type')
                            if isinstance(data__settings__author__email, str):
                                data__settings__author__email_len = len(data__settings__author__email)
                                if data__settings__author__email_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.email must be longer than or equal to 1 characters", value=data__settings__author__email, name="" + (name_prefix or "data") + ".settings.author.email", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='minLength')
                                if data__settings__author__email_len > 200:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author.email must be shorter than or equal to 200 characters", value=data__settings__author__email, name="" + (name_prefix or "data") + ".settings.author.email", definition={'type': 'string', 'minLength': 1, 'maxLength': 200}, rule='maxLength')
                        if data__settings__author_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.author must not contain "+str(data__settings__author_keys)+" properties", value=data__settings__author, name="" + (name_prefix or "data") + ".settings.author", definition={'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, rule='additionalProperties')
                if "lock_timeout_s" in data__settings_keys:
                    data__settings_keys.remove("lock_timeout_s")
                    data__settings__locktimeouts = data__settings["lock_timeout_s"]
                    if not isinstance(data__settings__locktimeouts, (int, float, Decimal)) or isinstance(data__settings__locktimeouts, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.lock_timeout_s must be number", value=data__settings__locktimeouts, name="" + (name_prefix or "data") + ".settings.lock_timeout_s", definition={'type': 'number', 'minimum': 0, 'maximum': 600}, rule='type')
                    if isinstance(data__settings__locktimeouts, (int, float, Decimal)) and not isinstance(data__settings__locktimeouts, bool):
                        if data__settings__locktimeouts < 0:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.lock_timeout_s must be bigger than or equal to 0", value=data__settings__locktimeouts, name="" + (name_prefix or "data") + ".settings.lock_timeout_s", definition={'type': 'number', 'minimum': 0, 'maximum': 600}, rule='minimum')
                        if data__settings__locktimeouts > 600:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.lock_timeout_s must be smaller than or equal to 600", value=data__settings__locktimeouts, name="" + (name_prefix or "data") + ".settings.lock_timeout_s", definition={'type': 'number', 'minimum': 0, 'maximum': 600}, rule='maximum')
                if "sync" in data__settings_keys:
                    data__settings_keys.remove("sync")
                    data__settings__sync = data__settings["sync"]
                    if not isinstance(data__settings__sync, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.sync must be object", value=data__settings__sync, name="" + (name_prefix or "data") + ".settings.sync", definition={'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, rule='type')
                    data__settings__sync_is_dict = isinstance(data__settings__sync, dict)
                    if data__settings__sync_is_dict:
                        data__settings__sync_keys = set(data__settings__sync.keys())
                        if "push" in data__settings__sync_keys:
                            data__settings__sync_keys.remove("push")
                            data__settings__sync__push = data__settings__sync["push"]
                            if not (isinstance(data__settings__sync__push, str) and data__settings__sync__push == 'session-end' or isinstance(data__settings__sync__push, str) and data__settings__sync__push == 'after-write' or isinstance(data__settings__sync__push, str) and data__settings__sync__push == 'manual'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.sync.push must be one of ['session-end', 'after-write', 'manual']", value=data__settings__sync__push, name="" + (name_prefix or "data") + ".settings.sync.push", definition={'enum': ['session-end', 'after-write', 'manual']}, rule='enum')
                        if data__settings__sync_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.sync must not contain "+str(data__settings__sync_keys)+" properties", value=data__settings__sync, name="" + (name_prefix or "data") + ".settings.sync", definition={'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, rule='additionalProperties')
                if "librarian" in data__settings_keys:
                    data__settings_keys.remove("librarian")
                    data__settings__librarian = data__settings["librarian"]
                    if not isinstance(data__settings__librarian, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian must be object", value=data__settings__librarian, name="" + (name_prefix or "data") + ".settings.librarian", definition={'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, rule='type')
                    data__settings__librarian_is_dict = isinstance(data__settings__librarian, dict)
                    if data__settings__librarian_is_dict:
                        data__settings__librarian_keys = set(data__settings__librarian.keys())
                        if "added" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("added")
                            data__settings__librarian__added = data__settings__librarian["added"]
                            if not isinstance(data__settings__librarian__added, (int)) and not (isinstance(data__settings__librarian__added, float) and data__settings__librarian__added.is_integer()) or isinstance(data__settings__librarian__added, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.added must be integer", value=data__settings__librarian__added, name="" + (name_prefix or "data") + ".settings.librarian.added", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__added, (int, float, Decimal)) and not isinstance(data__settings__librarian__added, bool):
                                if data__settings__librarian__added < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.added must be bigger than or equal to 1", value=data__settings__librarian__added, name="" + (name_prefix or "data") + ".settings.librarian.added", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__added > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.added must be smaller than or equal to 100000", value=data__settings__librarian__added, name="" + (name_prefix or "data") + ".settings.librarian.added", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "duplicates" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("duplicates")
                            data__settings__librarian__duplicates = data__settings__librarian["duplicates"]
                            if not isinstance(data__settings__librarian__duplicates, (int)) and not (isinstance(data__settings__librarian__duplicates, float) and data__settings__librarian__duplicates.is_integer()) or isinstance(data__settings__librarian__duplicates, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.duplicates must be integer", value=data__settings__librarian__duplicates, name="" + (name_prefix or "data") + ".settings.librarian.duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__duplicates, (int, float, Decimal)) and not isinstance(data__settings__librarian__duplicates, bool):
                                if data__settings__librarian__duplicates < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.duplicates must be bigger than or equal to 1", value=data__settings__librarian__duplicates, name="" + (name_prefix or "data") + ".settings.librarian.duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__duplicates > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.duplicates must be smaller than or equal to 100000", value=data__settings__librarian__duplicates, name="" + (name_prefix or "data") + ".settings.librarian.duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "near_duplicates" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("near_duplicates")
                            data__settings__librarian__nearduplicates = data__settings__librarian["near_duplicates"]
                            if not isinstance(data__settings__librarian__nearduplicates, (int)) and not (isinstance(data__settings__librarian__nearduplicates, float) and data__settings__librarian__nearduplicates.is_integer()) or isinstance(data__settings__librarian__nearduplicates, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.near_duplicates must be integer", value=data__settings__librarian__nearduplicates, name="" + (name_prefix or "data") + ".settings.librarian.near_duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__nearduplicates, (int, float, Decimal)) and not isinstance(data__settings__librarian__nearduplicates, bool):
                                if data__settings__librarian__nearduplicates < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.near_duplicates must be bigger than or equal to 1", value=data__settings__librarian__nearduplicates, name="" + (name_prefix or "data") + ".settings.librarian.near_duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__nearduplicates > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.near_duplicates must be smaller than or equal to 100000", value=data__settings__librarian__nearduplicates, name="" + (name_prefix or "data") + ".settings.librarian.near_duplicates", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "superseded" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("superseded")
                            data__settings__librarian__superseded = data__settings__librarian["superseded"]
                            if not isinstance(data__settings__librarian__superseded, (int)) and not (isinstance(data__settings__librarian__superseded, float) and data__settings__librarian__superseded.is_integer()) or isinstance(data__settings__librarian__superseded, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.superseded must be integer", value=data__settings__librarian__superseded, name="" + (name_prefix or "data") + ".settings.librarian.superseded", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__superseded, (int, float, Decimal)) and not isinstance(data__settings__librarian__superseded, bool):
                                if data__settings__librarian__superseded < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.superseded must be bigger than or equal to 1", value=data__settings__librarian__superseded, name="" + (name_prefix or "data") + ".settings.librarian.superseded", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__superseded > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.superseded must be smaller than or equal to 100000", value=data__settings__librarian__superseded, name="" + (name_prefix or "data") + ".settings.librarian.superseded", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "archivable" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("archivable")
                            data__settings__librarian__archivable = data__settings__librarian["archivable"]
                            if not isinstance(data__settings__librarian__archivable, (int)) and not (isinstance(data__settings__librarian__archivable, float) and data__settings__librarian__archivable.is_integer()) or isinstance(data__settings__librarian__archivable, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archivable must be integer", value=data__settings__librarian__archivable, name="" + (name_prefix or "data") + ".settings.librarian.archivable", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__archivable, (int, float, Decimal)) and not isinstance(data__settings__librarian__archivable, bool):
                                if data__settings__librarian__archivable < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archivable must be bigger than or equal to 1", value=data__settings__librarian__archivable, name="" + (name_prefix or "data") + ".settings.librarian.archivable", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__archivable > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archivable must be smaller than or equal to 100000", value=data__settings__librarian__archivable, name="" + (name_prefix or "data") + ".settings.librarian.archivable", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "stale_hot" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("stale_hot")
                            data__settings__librarian__stalehot = data__settings__librarian["stale_hot"]
                            if not isinstance(data__settings__librarian__stalehot, (int)) and not (isinstance(data__settings__librarian__stalehot, float) and data__settings__librarian__stalehot.is_integer()) or isinstance(data__settings__librarian__stalehot, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot must be integer", value=data__settings__librarian__stalehot, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='type')
                            if isinstance(data__settings__librarian__stalehot, (int, float, Decimal)) and not isinstance(data__settings__librarian__stalehot, bool):
                                if data__settings__librarian__stalehot < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot must be bigger than or equal to 1", value=data__settings__librarian__stalehot, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='minimum')
                                if data__settings__librarian__stalehot > 100000:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot must be smaller than or equal to 100000", value=data__settings__librarian__stalehot, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot", definition={'type': 'integer', 'minimum': 1, 'maximum': 100000}, rule='maximum')
                        if "stale_hot_days" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("stale_hot_days")
                            data__settings__librarian__stalehotdays = data__settings__librarian["stale_hot_days"]
                            if not isinstance(data__settings__librarian__stalehotdays, (int)) and not (isinstance(data__settings__librarian__stalehotdays, float) and data__settings__librarian__stalehotdays.is_integer()) or isinstance(data__settings__librarian__stalehotdays, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot_days must be integer", value=data__settings__librarian__stalehotdays, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot_days", definition={'type': 'integer', 'minimum': 1, 'maximum': 3650}, rule='type')
                            if isinstance(data__settings__librarian__stalehotdays, (int, float, Decimal)) and not isinstance(data__settings__librarian__stalehotdays, bool):
                                if data__settings__librarian__stalehotdays < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot_days must be bigger than or equal to 1", value=data__settings__librarian__stalehotdays, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot_days", definition={'type': 'integer', 'minimum': 1, 'maximum': 3650}, rule='minimum')
                                if data__settings__librarian__stalehotdays > 3650:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.stale_hot_days must be smaller than or equal to 3650", value=data__settings__librarian__stalehotdays, name="" + (name_prefix or "data") + ".settings.librarian.stale_hot_days", definition={'type': 'integer', 'minimum': 1, 'maximum': 3650}, rule='maximum')
                        if "archive_after_days" in data__settings__librarian_keys:
                            data__settings__librarian_keys.remove("archive_after_days")
                            data__settings__librarian__archiveafterdays = data__settings__librarian["archive_after_days"]
                            if not isinstance(data__settings__librarian__archiveafterdays, (int)) and not (isinstance(data__settings__librarian__archiveafterdays, float) and data__settings__librarian__archiveafterdays.is_integer()) or isinstance(data__settings__librarian__archiveafterdays, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archive_after_days must be integer", value=data__settings__librarian__archiveafterdays, name="" + (name_prefix or "data") + ".settings.librarian.archive_after_days", definition={'type': 'integer', 'minimum': 0, 'maximum': 36500}, rule='type')
                            if isinstance(data__settings__librarian__archiveafterdays, (int, float, Decimal)) and not isinstance(data__settings__librarian__archiveafterdays, bool):
                                if data__settings__librarian__archiveafterdays < 0:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archive_after_days must be bigger than or equal to 0", value=data__settings__librarian__archiveafterdays, name="" + (name_prefix or "data") + ".settings.librarian.archive_after_days", definition={'type': 'integer', 'minimum': 0, 'maximum': 36500}, rule='minimum')
                                if data__settings__librarian__archiveafterdays > 36500:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian.archive_after_days must be smaller than or equal to 36500", value=data__settings__librarian__archiveafterdays, name="" + (name_prefix or "data") + ".settings.librarian.archive_after_days", definition={'type': 'integer', 'minimum': 0, 'maximum': 36500}, rule='maximum')
                        if data__settings__librarian_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.librarian must not contain "+str(data__settings__librarian_keys)+" properties", value=data__settings__librarian, name="" + (name_prefix or "data") + ".settings.librarian", definition={'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, rule='additionalProperties')
                if "writes" in data__settings_keys:
                    data__settings_keys.remove("writes")
                    data__settings__writes = data__settings["writes"]
                    if not isinstance(data__settings__writes, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.writes must be object", value=data__settings__writes, name="" + (name_prefix or "data") + ".settings.writes", definition={'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, rule='type')
                    data__settings__writes_is_dict = isinstance(data__settings__writes, dict)
                    if data__settings__writes_is_dict:
                        data__settings__writes_keys = set(data__settings__writes.keys())
                        if "agents" in data__settings__writes_keys:
                            data__settings__writes_keys.remove("agents")
                            data__settings__writes__agents = data__settings__writes["agents"]
                            if not (isinstance(data__settings__writes__agents, str) and data__settings__writes__agents == 'active' or isinstance(data__settings__writes__agents, str) and data__settings__writes__agents == 'candidate' or isinstance(data__settings__writes__agents, str) and data__settings__writes__agents == 'off'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.writes.agents must be one of ['active', 'candidate', 'off']", value=data__settings__writes__agents, name="" + (name_prefix or "data") + ".settings.writes.agents", definition={'enum': ['active', 'candidate', 'off']}, rule='enum')
                        if data__settings__writes_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.writes must not contain "+str(data__settings__writes_keys)+" properties", value=data__settings__writes, name="" + (name_prefix or "data") + ".settings.writes", definition={'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, rule='additionalProperties')
                if "review" in data__settings_keys:
                    data__settings_keys.remove("review")
                    data__settings__review = data__settings["review"]
                    if not isinstance(data__settings__review, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review must be object", value=data__settings__review, name="" + (name_prefix or "data") + ".settings.review", definition={'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, rule='type')
                    data__settings__review_is_dict = isinstance(data__settings__review, dict)
                    if data__settings__review_is_dict:
                        data__settings__review_keys = set(data__settings__review.keys())
                        if "allowed_signers" in data__settings__review_keys:
                            data__settings__review_keys.remove("allowed_signers")
                            data__settings__review__allowedsigners = data__settings__review["allowed_signers"]
                            if not isinstance(data__settings__review__allowedsigners, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.allowed_signers must be string", value=data__settings__review__allowedsigners, name="" + (name_prefix or "data") + ".settings.review.allowed_signers", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='type')
                            if isinstance(data__settings__review__allowedsigners, str):
                                data__settings__review__allowedsigners_len = len(data__settings__review__allowedsigners)
                                if data__settings__review__allowedsigners_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.allowed_signers must be longer than or equal to 1 characters", value=data__settings__review__allowedsigners, name="" + (name_prefix or "data") + ".settings.review.allowed_signers", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='minLength')
                                if data__settings__review__allowedsigners_len > 4096:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.allowed_signers must be shorter than or equal to 4096 characters", value=data__settings__review__allowedsigners, name="" + (name_prefix or "data") + ".settings.review.allowed_signers", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='maxLength')
                        if "trust_unsigned" in data__settings__review_keys:
                            data__settings__review_keys.remove("trust_unsigned")
                            data__settings__review__trustunsigned = data__settings__review["trust_unsigned"]
                            if not isinstance(data__settings__review__trustunsigned, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.trust_unsigned must be array", value=data__settings__review__trustunsigned, name="" + (name_prefix or "data") + ".settings.review.trust_unsigned", definition={'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}, rule='type')
                            data__settings__review__trustunsigned_is_list = isinstance(data__settings__review__trustunsigned, (list, tuple))
                            if data__settings__review__trustunsigned_is_list:
                                data__settings__review__trustunsigned_len = len(data__settings__review__trustunsigned)
                                if data__settings__review__trustunsigned_len > 256:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.trust_unsigned must contain less than or equal to 256 items", value=data__settings__review__trustunsigned, name="" + (name_prefix or "data") + ".settings.review.trust_unsigned", definition={'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}, rule='maxItems')
                                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                if data__settings__review__trustunsigned_len > len(set(fn(data__settings__review__trustunsigned_x) for data__settings__review__trustunsigned_x in data__settings__review__trustunsigned)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review.trust_unsigned must contain unique items", value=data__settings__review__trustunsigned, name="" + (name_prefix or "data") + ".settings.review.trust_unsigned", definition={'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}, rule='uniqueItems')
                                for data__settings__review__trustunsigned_x, data__settings__review__trustunsigned_item in enumerate(data__settings__review__trustunsigned):
                                    if not isinstance(data__settings__review__trustunsigned_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".settings.review.trust_unsigned[{data__settings__review__trustunsigned_x}]" + " must be string", value=data__settings__review__trustunsigned_item, name="" + (name_prefix or "data") + f".settings.review.trust_unsigned[{data__settings__review__trustunsigned_x}]" + "", definition={'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}, rule='type')
                                    if isinstance(data__settings__review__trustunsigned_item, str):
                                        if not REGEX_PATTERNS['^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'].search(data__settings__review__trustunsigned_item):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + f".settings.review.trust_unsigned[{data__settings__review__trustunsigned_x}]" + " must match pattern ^([a-z0-9][a-z0-9._-]{0,63}|\\*)$", value=data__settings__review__trustunsigned_item, name="" + (name_prefix or "data") + f".settings.review.trust_unsigned[{data__settings__review__trustunsigned_x}]" + "", definition={'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}, rule='pattern')
                        if data__settings__review_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.review must not contain "+str(data__settings__review_keys)+" properties", value=data__settings__review, name="" + (name_prefix or "data") + ".settings.review", definition={'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, rule='additionalProperties')
                if "distill" in data__settings_keys:
                    data__settings_keys.remove("distill")
                    data__settings__distill = data__settings["distill"]
                    if not isinstance(data__settings__distill, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill must be object", value=data__settings__distill, name="" + (name_prefix or "data") + ".settings.distill", definition={'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}, rule='type')
                    data__settings__distill_is_dict = isinstance(data__settings__distill, dict)
                    if data__settings__distill_is_dict:
                        data__settings__distill_keys = set(data__settings__distill.keys())
                        if "command" in data__settings__distill_keys:
                            data__settings__distill_keys.remove("command")
                            data__settings__distill__command = data__settings__distill["command"]
                            if not isinstance(data__settings__distill__command, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.command must be array", value=data__settings__distill__command, name="" + (name_prefix or "data") + ".settings.distill.command", definition={'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, rule='type')
                            data__settings__distill__command_is_list = isinstance(data__settings__distill__command, (list, tuple))
                            if data__settings__distill__command_is_list:
                                data__settings__distill__command_len = len(data__settings__distill__command)
                                if data__settings__distill__command_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.command must contain at least 1 items", value=data__settings__distill__command, name="" + (name_prefix or "data") + ".settings.distill.command", definition={'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, rule='minItems')
                                if data__settings__distill__command_len > 64:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.command must contain less than or equal to 64 items", value=data__settings__distill__command, name="" + (name_prefix or "data") + ".settings.distill.command", definition={'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, rule='maxItems')
                                for data__settings__distill__command_x, data__settings__distill__command_item in enumerate(data__settings__distill__command):
                                    if not isinstance(data__settings__distill__command_item, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + " must be string", value=data__settings__distill__command_item, name="" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='type')
                                    if isinstance(data__settings__distill__command_item, str):
                                        data__settings__distill__command_item_len = len(data__settings__distill__command_item)
                                        if data__settings__distill__command_item_len < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + " must be longer than or equal to 1 characters", value=data__settings__distill__command_item, name="" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='minLength')
                                        if data__settings__distill__command_item_len > 4096:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + " must be shorter than or equal to 4096 characters", value=data__settings__distill__command_item, name="" + (name_prefix or "data") + f".settings.distill.command[{data__settings__distill__command_x}]" + "", definition={'type': 'string', 'minLength': 1, 'maxLength': 4096}, rule='maxLength')
                        if "timeout_s" in data__settings__distill_keys:
                            data__settings__distill_keys.remove("timeout_s")
                            data__settings__distill__timeouts = data__settings__distill["timeout_s"]
                            if not isinstance(data__settings__distill__timeouts, (int, float, Decimal)) or isinstance(data__settings__distill__timeouts, bool):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.timeout_s must be number", value=data__settings__distill__timeouts, name="" + (name_prefix or "data") + ".settings.distill.timeout_s", definition={'type': 'number', 'minimum': 1, 'maximum': 600}, rule='type')
                            if isinstance(data__settings__distill__timeouts, (int, float, Decimal)) and not isinstance(data__settings__distill__timeouts, bool):
                                if data__settings__distill__timeouts < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.timeout_s must be bigger than or equal to 1", value=data__settings__distill__timeouts, name="" + (name_prefix or "data") + ".settings.distill.timeout_s", definition={'type': 'number', 'minimum': 1, 'maximum': 600}, rule='minimum')
                                if data__settings__distill__timeouts > 600:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill.timeout_s must be smaller than or equal to 600", value=data__settings__distill__timeouts, name="" + (name_prefix or "data") + ".settings.distill.timeout_s", definition={'type': 'number', 'minimum': 1, 'maximum': 600}, rule='maximum')
                        if data__settings__distill_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings.distill must not contain "+str(data__settings__distill_keys)+" properties", value=data__settings__distill, name="" + (name_prefix or "data") + ".settings.distill", definition={'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}, rule='additionalProperties')
                if data__settings_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".settings must not contain "+str(data__settings_keys)+" properties", value=data__settings, name="" + (name_prefix or "data") + ".settings", definition={'type': 'object', 'additionalProperties': False, 'properties': {'author': {'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, 'lock_timeout_s': {'type': 'number', 'minimum': 0, 'maximum': 600}, 'sync': {'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, 'librarian': {'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, 'writes': {'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, 'review': {'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, 'distill': {'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}}}, rule='additionalProperties')
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jacked-vault machine configuration (~/.config/jacked/config.json)', 'description': 'Machine-local settings that sync can never write. The only place a setting that runs a program (distill.command) is honoured.', 'type': 'object', 'additionalProperties': False, 'required': ['version'], 'properties': {'version': {'const': 1}, 'roots': {'description': 'The folders where this machine keeps its clones (scanned by init, enable, group suggest, hooks install --git-all); default: the usual ones (~/code, ~/src, ~/Github, ~/projects, ...).', 'type': 'array', 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 1024}}, 'settings': {'type': 'object', 'additionalProperties': False, 'properties': {'author': {'type': 'object', 'additionalProperties': False, 'properties': {'name': {'type': 'string', 'minLength': 1, 'maxLength': 200}, 'email': {'type': 'string', 'minLength': 1, 'maxLength': 200}}}, 'lock_timeout_s': {'type': 'number', 'minimum': 0, 'maximum': 600}, 'sync': {'type': 'object', 'additionalProperties': False, 'properties': {'push': {'enum': ['session-end', 'after-write', 'manual']}}}, 'librarian': {'type': 'object', 'additionalProperties': False, 'properties': {'added': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'near_duplicates': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'superseded': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'archivable': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot': {'type': 'integer', 'minimum': 1, 'maximum': 100000}, 'stale_hot_days': {'type': 'integer', 'minimum': 1, 'maximum': 3650}, 'archive_after_days': {'type': 'integer', 'minimum': 0, 'maximum': 36500}}}, 'writes': {'type': 'object', 'additionalProperties': False, 'properties': {'agents': {'enum': ['active', 'candidate', 'off']}}}, 'review': {'type': 'object', 'additionalProperties': False, 'properties': {'allowed_signers': {'type': 'string', 'minLength': 1, 'maxLength': 4096}, 'trust_unsigned': {'description': 'Machines (their ids, or "*" for every one) whose unsigned accepts count as reviewed here; ignored while allowed_signers is set.', 'type': 'array', 'maxItems': 256, 'uniqueItems': True, 'items': {'type': 'string', 'pattern': '^([a-z0-9][a-z0-9._-]{0,63}|\\*)$'}}}}, 'distill': {'type': 'object', 'additionalProperties': False, 'properties': {'command': {'type': 'array', 'minItems': 1, 'maxItems': 64, 'items': {'type': 'string', 'minLength': 1, 'maxLength': 4096}}, 'timeout_s': {'type': 'number', 'minimum': 1, 'maximum': 600}}}}}}}, rule='additionalProperties')
    return data