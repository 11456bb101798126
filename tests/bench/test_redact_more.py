from accord.bench.redact import is_secret_key, redact_text


def test_url_passwords_and_secret_names_are_masked():
    assert redact_text("base_url: http://alice:hunter2pass@gw.local/v1") == \
        "base_url: http://alice:[REDACTED]@gw.local/v1"
    assert redact_text("https://gw.local/v1") == "https://gw.local/v1"
    assert is_secret_key("AWS_SECRET_ACCESS_KEY") and is_secret_key("OPENAI_API_KEY")
    assert not is_secret_key("PATH") and not is_secret_key("keyboard_layout")
