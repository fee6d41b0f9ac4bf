package forumsim

// style is a small prosilver-like stylesheet, so a person opening the demo
// thread in a browser reads a forum and not bare HTML. Only looks: the
// markup the parser reads does not depend on it.
const style = `<style>
body{margin:0;background:#f5f7fa;font:13px/1.45 "Trebuchet MS",Verdana,Helvetica,Arial,sans-serif;color:#333}
.wrap{max-width:1100px;margin:0 auto;padding:12px;background:#fff;border:1px solid #e6e9ed;border-radius:8px}
a{color:#105289;text-decoration:none}a:hover{color:#d31141;text-decoration:underline}
.headerbar{background:linear-gradient(#6aceff,#0076b1 2px,#12a3eb 92px);color:#fff;border-radius:7px;padding:6px 12px;margin-bottom:4px}
.headerbar h1{margin:4px 0 0;font-size:22px}.headerbar p{margin:2px 0 6px}
.navbar{background:#cadceb;border-radius:7px;padding:3px 10px}
ul.linklist{list-style:none;margin:0;padding:2px 0;overflow:hidden}ul.linklist li{float:left;margin-right:12px}ul.linklist li.rightside{float:right;margin:0 0 0 12px}
h2,h3{color:#105289;font-family:"Trebuchet MS",Arial,sans-serif;font-weight:normal}h2{font-size:20px;margin:10px 0 4px}
.action-bar{margin:6px 0;overflow:hidden}.pagination{float:right}.pagination ul{display:inline;list-style:none;margin:0;padding:0}.pagination li{display:inline;margin-left:3px}
.pagination li a,.pagination li span{padding:1px 6px;border:1px solid #b4bac0;border-radius:3px;background:#eee}.pagination li.active span{background:#4692bf;color:#fff;border-color:#4692bf}
.button{display:inline-block;padding:2px 8px;border:1px solid #c7c3bf;border-radius:4px;background:linear-gradient(#fff,#e9e9e9)}
.post{background:#e1ebf2;border-radius:7px;padding:6px 10px;margin-bottom:6px;overflow:hidden}.post.bg1{background:#ecf3f7}
.postprofile{float:right;width:170px;margin:0;padding-left:8px;border-left:1px solid #fff;min-height:60px;color:#666}.postprofile dd,.postprofile dt{margin:0}
.postbody{margin-right:185px}.postbody h3{font-size:15px;margin:2px 0}.author{font-size:11px;color:#555;margin:0 0 6px}
.content{font-family:"Lucida Grande","Trebuchet MS",Verdana,sans-serif;font-size:13px;line-height:1.5}
.content span[style*="85%"]{color:#8f8f8f}
blockquote{background:#ebeadd;border:1px solid #dbdbce;margin:8px 1px 8px 20px;padding:5px}blockquote cite{font-style:normal;font-weight:bold;display:block;font-size:.9em}
.codebox{background:#fff;border:1px solid #c9d2d8;padding:3px;margin:6px 0}.codebox p{margin:0;font-size:11px;text-transform:uppercase}
.spoiler{border:1px dashed #999;padding:4px}.spoiler-content{color:#e1ebf2;background:#e1ebf2}.spoiler-content:hover{color:#333}
.notice{font-size:11px;color:#666;border-top:1px dashed #ccc;margin-top:8px;padding-top:3px}
.signature{border-top:1px solid #ccc;margin-top:8px;padding-top:3px;font-size:11px;color:#555}
.username-coloured{font-weight:bold}a.username{font-weight:bold}
ul.topiclist{list-style:none;margin:0;padding:0}ul.topiclist li.row{background:#ecf3f7;border-bottom:1px solid #fff;padding:5px 8px}
.error{color:#bc2a4d}.panel{background:#ecf1f3;border-radius:7px;padding:8px 10px;margin:6px 0}
.back2top,hr.divider{display:none}
</style>
`
