//! Lists of named entries (a node's field values, a Script's or a
//! prototype's declared fields) that are looked up by name.

use std::ops::Deref;

use crate::hash::HashMap;

/// An entry found by its name.
pub trait Named {
    /// The item's name.
    fn name(&self) -> &str;
}

impl Named for super::FieldDef {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for super::SetField {
    fn name(&self) -> &str {
        &self.name
    }
}

/// Up to this many entries a list is scanned; past it, a map from names is
/// kept beside it.
const SCAN: usize = 16;

/// Entries in the order they were added, found by name: by a scan while the
/// list is short (most nodes have a few fields), through a map from each
/// name to its first entry once it is long (a Script or a prototype may
/// declare tens of thousands of fields, each route and value looks one up,
/// and a scan each time made such a file take seconds a thousand fields).
#[derive(Clone, Debug)]
pub struct NamedList<T> {
    items: Vec<T>,
    index: Option<Box<HashMap<String, usize>>>,
}

impl<T> Default for NamedList<T> {
    fn default() -> Self {
        NamedList {
            items: Vec::new(),
            index: None,
        }
    }
}

impl<T> Deref for NamedList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T: Named> NamedList<T> {
    /// Adds an entry at the end. A name given before keeps finding the
    /// first entry of that name.
    pub fn push(&mut self, item: T) {
        // Room for two at first: most nodes are given one or two fields
        // (a Vec's first is room for four).
        if self.items.capacity() == 0 {
            self.items.reserve_exact(2);
        }
        if let Some(index) = &mut self.index {
            index
                .entry(item.name().to_string())
                .or_insert(self.items.len());
        }
        self.items.push(item);
        if self.index.is_none() && self.items.len() > SCAN {
            self.reindex();
        }
    }

    /// The map from each name to its first entry, made anew.
    fn reindex(&mut self) {
        let mut index = HashMap::default();
        for (i, item) in self.items.iter().enumerate() {
            index.entry(item.name().to_string()).or_insert(i);
        }
        self.index = Some(Box::new(index));
    }

    /// Takes out the first entry of a name; the others keep their order.
    pub fn remove(&mut self, name: &str) -> Option<T> {
        let i = self.position(name)?;
        let item = self.items.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(item)
    }

    fn position(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.items.iter().position(|x| x.name() == name),
        }
    }

    /// The first entry of a name.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.position(name).map(|i| &self.items[i])
    }

    /// The first entry of a name, to change (not its name).
    pub fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        self.position(name).map(|i| &mut self.items[i])
    }

    /// Replaces the entry of the item's name, or adds it at the end.
    pub fn set(&mut self, item: T) {
        match self.get_mut(item.name()) {
            Some(old) => *old = item,
            None => self.push(item),
        }
    }

    /// Every entry, to change (not their names: the map would not follow).
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(String, u32);
    impl Named for E {
        fn name(&self) -> &str {
            &self.0
        }
    }

    /// The list answers as a scan of its entries would, short and long,
    /// with names given twice, entries replaced and entries taken out.
    #[test]
    fn finds_what_a_scan_finds() {
        let mut list: NamedList<E> = NamedList::default();
        let mut plain: Vec<E> = Vec::new();
        for i in 0..100u32 {
            let name = format!("f{}", i % 40);
            if i % 7 == 6 {
                // Every seventh takes out the first entry of a name instead.
                let at = plain.iter().position(|e| e.0 == name);
                let taken = list.remove(&name).map(|e| e.1);
                assert_eq!(taken, at.map(|at| plain.remove(at).1));
            } else if i % 3 == 0 {
                list.set(E(name.clone(), i));
                match plain.iter_mut().find(|e| e.0 == name) {
                    Some(e) => e.1 = i,
                    None => plain.push(E(name, i)),
                }
            } else {
                list.push(E(name.clone(), i));
                plain.push(E(name, i));
            }
            for k in 0..45 {
                let name = format!("f{k}");
                let want = plain.iter().find(|e| e.0 == name).map(|e| e.1);
                assert_eq!(list.get(&name).map(|e| e.1), want, "{name} after {i}");
            }
            assert_eq!(list.len(), plain.len());
        }
        assert!(list.index.is_some());
    }
}
