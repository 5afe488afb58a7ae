//! Scenes made for tests, and the bundled example.

/// The bundled example: a bouncing, turning, colour-changing box.
pub const BOX: &str = "fixtures/scenes/bouncing_box.x3d";

/// A looping clock of `seconds` moving T by a PositionInterpolator of these
/// keys and values.
pub fn long_scene(seconds: u32, key: &str, values: &str) -> String {
    format!(
        "<X3D><Scene><Transform DEF='T'/><TimeSensor DEF='C' cycleInterval='{seconds}' loop='true'/>\
         <PositionInterpolator DEF='P' key='{key}' keyValue='{values}'/>\
         <ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>\
         <ROUTE fromNode='P' fromField='value_changed' toNode='T' toField='translation'/></Scene></X3D>"
    )
}

/// A CoordinateInterpolator of `keys` keys on a triangle, over 600 s.
pub fn morph_scene(keys: usize) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "<X3D><Scene><TimeSensor DEF='T' cycleInterval='600' loop='true'/>\n\
         <Shape><IndexedFaceSet coordIndex='0 1 2'>\
         <Coordinate DEF='C' point='0 0 0 1 0 0 0 1 0'/></IndexedFaceSet></Shape>\n\
         <CoordinateInterpolator DEF='I' key='",
    );
    for k in 0..keys {
        write!(text, "{} ", k as f64 / (keys - 1) as f64).unwrap();
    }
    text += "' keyValue='";
    for k in 0..keys {
        write!(text, "{} 0 0 1 0 0 0 1 0 ", k % 7).unwrap();
    }
    text + "'/>\n<ROUTE fromNode='T' fromField='fraction_changed' toNode='I' toField='set_fraction'/>\n\
            <ROUTE fromNode='I' fromField='value_changed' toNode='C' toField='point'/>\n</Scene></X3D>\n"
}
