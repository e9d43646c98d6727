//! A registry being changed in place of an executor's: what [`Executor::edit`] hands a change.
//!
//! [`Executor::edit`]: crate::exec::Executor::edit

use std::fmt;
use std::ops::Deref;

use super::{DynamicTool, Registry, RegistryError, Tool};
use crate::prompt::Prompt;
use crate::resource::Resource;

/// A copy of an executor's registry, being changed: it reads as the registry does (through
/// `Deref`) and changes through the methods below. It cannot be taken out of the change, nor can
/// what it holds: an item that can be run (a tool's handler, a resource's reader, a prompt's
/// getter) leaves an executor only into another executor with the same policy and layers.
///
/// ```
/// use serde_json::json;
/// use tool_core::{Executor, Registry, ToolContext, ToolOutput, registry::DynamicTool};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let executor = Executor::new(Registry::empty());
/// let (executor, ()) = executor.edit(|tools| {
///     tools.register(DynamicTool::new("ping_host", "Pings.", json!({"type": "object"}))
///         .handler(|_, _| async { Ok(ToolOutput::new(json!("pong"))) }))
/// })?;
/// assert!(executor.registry().get("ping_host").is_some());
/// # Ok::<_, tool_core::registry::RegistryError>(())
/// # }).unwrap();
/// ```
pub struct Edit<'a> {
    registry: &'a mut Registry,
}

impl<'a> Edit<'a> {
    pub(crate) fn new(registry: &'a mut Registry) -> Self {
        Self { registry }
    }

    /// Adds a tool built at run time ([`Registry::register`]).
    pub fn register(&mut self, tool: DynamicTool) -> Result<(), RegistryError> {
        self.registry.register(tool)
    }

    /// Adds tools built at run time, all or none ([`Registry::register_all`]).
    pub fn register_all(
        &mut self,
        tools: impl IntoIterator<Item = DynamicTool>,
    ) -> Result<(), RegistryError> {
        self.registry.register_all(tools)
    }

    /// Removes the tool named `name`; returns whether there was one.
    pub fn unregister(&mut self, name: &str) -> bool {
        self.registry.unregister(name).is_some()
    }

    /// Keeps only the tools `keep` says yes to (resources and prompts stay).
    pub fn retain(&mut self, mut keep: impl FnMut(&Tool) -> bool) {
        let gone: Vec<String> = self
            .registry
            .tools()
            .iter()
            .filter(|t| !keep(t))
            .map(|t| t.name().to_owned())
            .collect();
        for name in gone {
            self.registry.unregister(&name);
        }
    }

    /// Adds a resource or template ([`Registry::add_resource`]).
    pub fn add_resource(&mut self, resource: Resource) -> Result<(), RegistryError> {
        self.registry.add_resource(resource)
    }

    /// Adds a prompt ([`Registry::add_prompt`]).
    pub fn add_prompt(&mut self, prompt: Prompt) -> Result<(), RegistryError> {
        self.registry.add_prompt(prompt)
    }

    /// Removes the resource or template at `uri`; returns whether there was one.
    pub fn remove_resource(&mut self, uri: &str) -> bool {
        self.registry.remove_resource(uri).is_some()
    }

    /// Removes the prompt named `name`; returns whether there was one.
    pub fn remove_prompt(&mut self, name: &str) -> bool {
        self.registry.remove_prompt(name).is_some()
    }
}

/// A registry the caller owns, changed through the same methods: for code that adds items
/// both to a registry being built and to an executor's edit (a mounted server's, say).
impl<'a> From<&'a mut Registry> for Edit<'a> {
    fn from(registry: &'a mut Registry) -> Self {
        Self::new(registry)
    }
}

impl<'a, 'b> From<&'b mut Edit<'a>> for Edit<'b> {
    fn from(edit: &'b mut Edit<'a>) -> Self {
        Self::new(edit.registry)
    }
}

impl Deref for Edit<'_> {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        self.registry
    }
}

impl fmt::Debug for Edit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Edit").field(&*self.registry).finish()
    }
}
