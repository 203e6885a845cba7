// Placeholder: the GitCore module.
