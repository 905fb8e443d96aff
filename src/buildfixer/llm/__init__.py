"""Model access: litellm for real providers (imported only when used), scripted fakes for tests."""
